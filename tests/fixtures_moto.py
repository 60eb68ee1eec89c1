"""moto server fixtures (filled in by the store work)."""
