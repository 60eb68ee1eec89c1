"""Root fixtures. Real components come from plugin modules, each owned by its concept:
moto server (tests/fixtures_moto.py) and embedded Postgres (tests/fixtures_pg.py)."""

pytest_plugins = ["tests.fixtures_moto", "tests.fixtures_pg"]
