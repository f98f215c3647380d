-- Search (issue 5), part 1 of 3: functions the schema needs before its columns exist.

-- Terms (tokens) in a tsvector: the sum of its lexemes' positions, i.e. the words that were
-- indexed (stop words excluded), which is a document's length in Lucene's BM25. A lexeme
-- without positions (a stripped vector) counts once.
CREATE FUNCTION quarry_tsvector_length(v tsvector) RETURNS integer
LANGUAGE sql IMMUTABLE PARALLEL SAFE RETURNS NULL ON NULL INPUT
RETURN (SELECT coalesce(sum(coalesce(cardinality(u.positions), 1)), 0)::integer FROM unnest(v) AS u);
