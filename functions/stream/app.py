"""POST /agent/stream: the FastAPI app under uvicorn behind the Lambda Web Adapter (run.sh starts
`uvicorn app:create_app --factory`; docs/architecture.md#runtimes-and-streaming).

uvicorn calls the factory as it starts, the init phase of this function: it loads the function's
settings first (`StreamSettings`), so a variable missing or invalid stops uvicorn with its name before
the adapter's readiness check passes, and no request is ever served.
"""

from fastapi import FastAPI
from trainer.api.app import create_app as create_api_app
from trainer.settings import StreamSettings


def create_app() -> FastAPI:
    return create_api_app(settings=StreamSettings.from_environment())
