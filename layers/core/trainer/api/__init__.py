"""The HTTP layer: `trainer.api.app.create_app` builds the FastAPI application."""
