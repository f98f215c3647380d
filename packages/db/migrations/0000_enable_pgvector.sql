-- drizzle-kit does not emit extensions; every later migration needs the vector type.
CREATE EXTENSION IF NOT EXISTS vector;
