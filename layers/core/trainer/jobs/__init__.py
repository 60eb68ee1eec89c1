"""Asynchronous work behind EventBridge: the bus adapters, checkpointing and cost aggregation."""
