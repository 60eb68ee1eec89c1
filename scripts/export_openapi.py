"""Write openapi.json at the repository root: the OpenAPI document of the API built from default
Settings (the message limit and the other settings the document shows at their defaults, whatever
the environment says). A test fails while the committed file differs from what this writes.

    .venv/bin/python scripts/export_openapi.py [--out openapi.json]
"""

from __future__ import annotations

import argparse
from pathlib import Path

from trainer.api.app import create_app
from trainer.api.openapi import render_openapi
from trainer.settings import Settings

REPO = Path(__file__).resolve().parent.parent
OPENAPI_PATH = REPO / "openapi.json"


def openapi_text() -> str:
    """The document, pretty-printed with sorted keys (so the same code gives the same bytes)."""
    return render_openapi(create_app(settings=Settings.model_construct()).openapi())


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--out", type=Path, default=OPENAPI_PATH)
    args = parser.parse_args(argv)
    args.out.write_text(openapi_text(), encoding="utf-8")
    print(f"wrote {args.out}")


if __name__ == "__main__":
    main()
