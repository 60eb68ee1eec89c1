"""Benchmarks: `make bench` runs every bench/bench_*.py module's `run()` and prints its figures."""
