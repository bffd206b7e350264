# The worker and enqueue binaries on a distroless, non-root base (uid 65532),
# as the Helm chart runs them: args ["worker"] or ["worker", "migrate"].
FROM golang:1.26 AS build
WORKDIR /src
COPY go.mod go.sum ./
RUN go mod download
COPY . .
RUN CGO_ENABLED=0 go build -trimpath -ldflags "-s -w" -o /out/worker ./cmd/worker \
 && CGO_ENABLED=0 go build -trimpath -ldflags "-s -w" -o /out/enqueue ./cmd/enqueue

FROM gcr.io/distroless/static-debian12:nonroot
COPY --from=build /out/worker /out/enqueue /usr/local/bin/
USER 65532:65532
EXPOSE 9464
CMD ["worker"]
