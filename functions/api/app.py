"""Buffered JSON routes: the FastAPI app under Mangum (ARCHITECTURE §3).

Built at import so clients live across warm invocations; `create_app()` defers heavy work to first use.
"""

from mangum import Mangum
from trainer.api.app import create_app

handler = Mangum(create_app(), lifespan="off")
