"""Asynchronous work behind EventBridge: checkpointing, cost aggregation and the program schedules."""
