"""Development code, never deployed: the local stack (`trainer_dev.local`) and the `trainer` command
(`trainer_dev.cli`). Installed by `make venv` beside the `trainer` package; the Lambda layer is built from
layers/core only, and no production module imports this package (tests/unit/test_layers.py)."""
