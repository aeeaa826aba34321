/**
 * Where loom keeps its state when no `DATABASE_URL` is set: `data/loom.sqlite`, relative to the
 * working directory the App starts in (the checkout for `npm start`, `/app` in the container image,
 * whose `data/` directory is the volume to mount). The only place this default is written down:
 * `readAppConfig` and `openStore` both take it from here. SQLite keeps `-wal` and `-shm` files next
 * to it, so persist the directory, not the file alone.
 */
export const defaultSqlitePath = "data/loom.sqlite";
