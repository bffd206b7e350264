# The worker and enqueue binaries on a distroless, non-root base (uid 65532),
# as the Helm chart runs them: args ["worker"] or ["worker", "migrate"].
# VERSION is what `worker --version` and `enqueue --version` print and the
# evidencefleet_worker_info metric carries, e.g.
#   docker build --build-arg VERSION=$(git describe --tags --always --dirty) .
FROM golang:1.26 AS build
WORKDIR /src
COPY go.mod go.sum ./
RUN go mod download
COPY . .
ARG VERSION=dev
RUN CGO_ENABLED=0 go build -trimpath -ldflags "-s -w -X github.com/evidencefleet/evidencefleet/internal/version.Version=${VERSION}" -o /out/worker ./cmd/worker \
 && CGO_ENABLED=0 go build -trimpath -ldflags "-s -w -X github.com/evidencefleet/evidencefleet/internal/version.Version=${VERSION}" -o /out/enqueue ./cmd/enqueue

FROM gcr.io/distroless/static-debian12:nonroot
COPY --from=build /out/worker /out/enqueue /usr/local/bin/
USER 65532:65532
EXPOSE 9464
CMD ["worker"]
