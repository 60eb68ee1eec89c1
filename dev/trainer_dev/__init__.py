"""Development code, never deployed: the local stack (`trainer_dev.local`), the `trainer` command
(`trainer_dev.cli`) and the fakes the tests and benchmarks share (`trainer_dev.testing`). Installed by
`make venv` beside the `trainer` package; the Lambda layer is built from layers/core only, and no
production module imports this package (tests/unit/project/test_layers.py)."""
