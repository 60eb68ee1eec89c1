"""embedded Postgres fixtures (filled in by the domain-data work)."""
