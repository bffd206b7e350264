-- name: HasSomeSchema :one
-- Whether the database holds any of the fleet's tables (the evidence schema's
-- tasks, River's river_job): enqueue tells a database that was never
-- migrated from one migrated by an older version.
SELECT (to_regclass('tasks') IS NOT NULL OR to_regclass('river_job') IS NOT NULL)::bool AS some;

-- name: HasTable :one
-- Whether the database has the table (a process checks that the
-- migrations it needs were applied before it serves).
SELECT (to_regclass(@name::text) IS NOT NULL)::bool AS has;
