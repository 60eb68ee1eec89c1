"""JSON bodies the app must not parse: nested deeper than any request needs (a 6 KB body of 3,000
nested arrays is a RecursionError in the parser) or holding a lone UTF-16 surrogate escape (valid
JSON, but no store or model API can encode it). Both are `400 invalid_body`, before any route runs."""

from __future__ import annotations

from starlette.types import ASGIApp, Message, Receive, Scope, Send

from trainer.api.errors import ApiError, error_response

MAX_DEPTH = 32
"""The deepest request is a workout: body > currentWorkout > exercises > [n] > group (5 levels)."""
BODY_METHODS = frozenset({"POST", "PUT", "PATCH"})
HEX = frozenset(b"0123456789abcdefABCDEF")


def json_problem(body: bytes, max_depth: int = MAX_DEPTH) -> str | None:
    """Why the body must be refused, or None. Reads the text once, without parsing it."""
    if body.count(b"[") + body.count(b"{") <= max_depth and b"\\u" not in body:
        return None
    depth = 0
    in_string = False
    pending_high = False
    i, size = 0, len(body)
    while i < size:
        byte = body[i]
        if in_string:
            if byte == 0x5C:  # backslash
                if i + 5 < size and body[i + 1] == 0x75 and all(c in HEX for c in body[i + 2 : i + 6]):
                    unit = int(body[i + 2 : i + 6], 16)
                    if 0xDC00 <= unit <= 0xDFFF and not pending_high:
                        return "The body holds a lone UTF-16 surrogate (\\udc00-\\udfff)."
                    if pending_high and not 0xDC00 <= unit <= 0xDFFF:
                        return "The body holds a lone UTF-16 surrogate (\\ud800-\\udbff)."
                    pending_high = 0xD800 <= unit <= 0xDBFF
                    i += 6
                    continue
                if pending_high:
                    return "The body holds a lone UTF-16 surrogate (\\ud800-\\udbff)."
                i += 2
                continue
            if pending_high:
                return "The body holds a lone UTF-16 surrogate (\\ud800-\\udbff)."
            if byte == 0x22:  # closing quote
                in_string = False
        elif byte == 0x22:
            in_string = True
        elif byte in (0x5B, 0x7B):  # [ {
            depth += 1
            if depth > max_depth:
                return f"The JSON body is nested deeper than {max_depth} levels."
        elif byte in (0x5D, 0x7D):
            depth -= 1
        i += 1
    return None


class JsonBodyGuardMiddleware:
    """Reads a request body once, refuses it if `json_problem` says so, and otherwise hands the same
    bytes to the app."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http" or scope.get("method") not in BODY_METHODS:
            await self.app(scope, receive, send)
            return
        chunks: list[bytes] = []
        try:
            while True:
                message = await receive()
                if message["type"] != "http.request":
                    return
                chunks.append(message.get("body", b""))
                if not message.get("more_body", False):
                    break
        except ApiError as err:
            response = error_response(err.status, err.code, err.message, headers=dict(err.headers or {}))
            await response(scope, receive, send)
            return
        body = b"".join(chunks)
        problem = json_problem(body)
        if problem is not None:
            await error_response(400, "invalid_body", problem)(scope, receive, send)
            return
        replayed = False

        async def replay() -> Message:
            nonlocal replayed
            if not replayed:
                replayed = True
                return {"type": "http.request", "body": body, "more_body": False}
            return await receive()

        await self.app(scope, replay, send)
