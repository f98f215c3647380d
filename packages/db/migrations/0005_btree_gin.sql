-- btree_gin lets a GIN index lead with dataset_id (rows_dataset_metadata_gin_idx, next migration).
-- Neon ships it; PGlite loads it as a contrib extension.
CREATE EXTENSION IF NOT EXISTS btree_gin;
