"""A local identity provider for `trainer invoke`: an RSA key pair made at start, its public key served
as a JWKS document on loopback, and RS256 tokens signed with the private key.

The template's API and stream functions verify bearer tokens against `JwksUrl` (and check `JwtIssuer`,
`JwtAudience`); `trainer invoke` gives those parameters this provider's URL and issuer, so the function
fetches the keys and verifies a token exactly as deployed (trainer.api.auth's JWKS mode), with no
development secret anywhere. Plain HTTP: it never leaves 127.0.0.1.
"""

from __future__ import annotations

import json
import threading
import time
import uuid
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from types import TracebackType
from typing import Any, Self

import jwt
from cryptography.hazmat.primitives.asymmetric import rsa
from jwt.algorithms import RSAAlgorithm

JWKS_PATH = "/.well-known/jwks.json"
ALGORITHM = "RS256"
DEFAULT_TTL_SECONDS = 3600


class LocalIdentityProvider:
    """Start with `start()` (or `with`); `jwks_url` and `issuer` are known from then on."""

    def __init__(self, host: str = "127.0.0.1") -> None:
        self.host = host
        self.key_id = uuid.uuid4().hex
        self._private_key = rsa.generate_private_key(public_exponent=65537, key_size=2048)
        public_jwk = json.loads(RSAAlgorithm.to_jwk(self._private_key.public_key()))
        self.jwks: dict[str, Any] = {
            "keys": [{**public_jwk, "kid": self.key_id, "alg": ALGORITHM, "use": "sig"}]
        }
        self.requests = 0
        """JWKS documents served so far (a function fetches them when it first verifies a token)."""
        self._server: ThreadingHTTPServer | None = None
        self._thread: threading.Thread | None = None

    @property
    def issuer(self) -> str:
        if self._server is None:
            raise RuntimeError("the identity provider is not started")
        return f"http://{self.host}:{self._server.server_address[1]}"

    @property
    def jwks_url(self) -> str:
        return self.issuer + JWKS_PATH

    def start(self) -> Self:
        provider = self

        class Handler(BaseHTTPRequestHandler):
            def do_GET(self) -> None:
                if self.path.split("?", 1)[0] != JWKS_PATH:
                    self.send_error(404)
                    return
                provider.requests += 1
                body = json.dumps(provider.jwks).encode()
                self.send_response(200)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

            def log_message(self, format: str, *args: Any) -> None:
                pass

        self._server = ThreadingHTTPServer((self.host, 0), Handler)
        self._server.daemon_threads = True
        self._thread = threading.Thread(target=self._server.serve_forever, name="local-jwks", daemon=True)
        self._thread.start()
        return self

    def stop(self) -> None:
        if self._server is not None:
            self._server.shutdown()
            self._server.server_close()
        if self._thread is not None:
            self._thread.join(timeout=5)

    def __enter__(self) -> Self:
        return self.start()

    def __exit__(
        self, kind: type[BaseException] | None, value: BaseException | None, tb: TracebackType | None
    ) -> None:
        self.stop()

    def token(
        self,
        user_id: str,
        *,
        issuer: str | None = None,
        audience: str | None = None,
        ttl_seconds: int = DEFAULT_TTL_SECONDS,
    ) -> str:
        """An RS256 access token for `user_id`, signed with this provider's key (header `kid`);
        `iss` is this provider unless another is named, `aud` only when given."""
        issued = int(time.time())
        claims: dict[str, Any] = {
            "sub": str(uuid.UUID(user_id)),
            "iss": issuer or self.issuer,
            "iat": issued,
            "exp": issued + ttl_seconds,
            "role": "authenticated",
        }
        if audience:
            claims["aud"] = audience
        return jwt.encode(claims, self._private_key, algorithm=ALGORITHM, headers={"kid": self.key_id})
