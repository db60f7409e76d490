-- Forecast details and predictions compressed with lz4 instead of pglz: about half of
-- PostgreSQL's CPU to store a recompute of the 100,000-invoice bench organisation (ADR 0006,
-- docs/benchmarks.md stop 13). A server built without lz4 (PGlite) keeps pglz.
DO $$
BEGIN
  ALTER TABLE "forecast_snapshots" ALTER COLUMN "detail" SET COMPRESSION lz4;
  ALTER TABLE "forecast_snapshots" ALTER COLUMN "payload" SET COMPRESSION lz4;
  ALTER TABLE "forecast_predictions" ALTER COLUMN "predictions" SET COMPRESSION lz4;
EXCEPTION WHEN feature_not_supported THEN
  NULL;
END $$;
