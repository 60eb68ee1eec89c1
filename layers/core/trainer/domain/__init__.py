"""Pure training logic and schemas: no I/O."""
