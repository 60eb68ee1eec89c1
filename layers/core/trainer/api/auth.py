"""Bearer-token verification (PyJWT). It fails closed.

Two modes, chosen by configuration:
- TRAINER_JWKS_URL set: RS256/ES256 tokens verified against the JWKS (Cognito, Supabase asymmetric
  keys). Keys are cached by PyJWKClient; the fetch runs in a worker thread. HS256 is refused in
  this mode, and a token whose algorithm does not match its key is 401.
- otherwise: HS256 with TRAINER_JWT_SECRET (local development; Supabase legacy JWT secret). A
  deployed function (the Lambda runtime's variables are set) with neither a JWKS URL nor a secret of
  its own refuses to start (trainer.settings.functions, TOKEN_VERIFICATION), and no verifier is built
  on the public default secret there (ConfigurationError).
`exp` must be a number. Issuer and audience are checked whenever they are configured, in either
mode; with no audience configured, a token that names one is refused (it cannot be checked). `sub`
is the user id and must be a UUID (the domain tables key users by UUID).
"""

from __future__ import annotations

import asyncio
import time
import uuid
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from trainer.api.errors import ApiError
from trainer.settings import AuthSettings, ConfigurationError

if TYPE_CHECKING:
    import jwt

HS_ALGORITHMS = ["HS256"]
JWKS_ALGORITHMS = ["RS256", "ES256"]
JWKS_CACHE_SECONDS = 300
DEFAULT_DEV_TOKEN_TTL = 12 * 3600
_WWW_AUTHENTICATE = {"WWW-Authenticate": "Bearer"}


@dataclass(frozen=True)
class Principal:
    user_id: str
    claims: dict[str, Any] = field(default_factory=dict)


def unauthorized(code: str, message: str) -> ApiError:
    return ApiError(401, code, message, headers=_WWW_AUTHENTICATE)


def bearer_token(authorization: str | None) -> str:
    if not authorization:
        raise unauthorized("missing_token", "An Authorization: Bearer <token> header is required.")
    scheme, _, token = authorization.strip().partition(" ")
    if scheme.lower() != "bearer" or not token.strip():
        raise unauthorized("missing_token", "The Authorization header must be 'Bearer <token>'.")
    return token.strip()


class TokenVerifier:
    def __init__(self, settings: AuthSettings, *, jwks_client: jwt.PyJWKClient | None = None) -> None:
        if settings.deployed and not settings.verifies_tokens_safely:
            raise ConfigurationError(
                settings.lambda_function_name or "the function",
                ["TRAINER_JWKS_URL is not set and TRAINER_JWT_SECRET is the public development default"],
            )
        self.issuer = settings.jwt_issuer
        self.audience = settings.jwt_audience
        self._secret = settings.jwt_secret.get_secret_value()
        self._jwks: jwt.PyJWKClient | None = jwks_client
        if self._jwks is None and settings.jwks_url:
            import jwt

            self._jwks = jwt.PyJWKClient(settings.jwks_url, cache_keys=True, lifespan=JWKS_CACHE_SECONDS)

    @property
    def mode(self) -> str:
        return "jwks" if self._jwks is not None else "hs256"

    async def verify(self, token: str) -> Principal:
        import jwt

        try:
            header = jwt.get_unverified_header(token)
        except jwt.PyJWTError:
            raise unauthorized("invalid_token", "The token is malformed.") from None
        if self._jwks is not None:
            if header.get("alg") not in JWKS_ALGORITHMS:
                raise unauthorized("invalid_token", "The token's signing algorithm is not accepted.")
            key = await self._signing_key(token, str(header.get("alg")))
            claims = self._decode(token, key, JWKS_ALGORITHMS)
        else:
            if header.get("alg") not in HS_ALGORITHMS:
                raise unauthorized("invalid_token", "The token's signing algorithm is not accepted.")
            claims = self._decode(token, self._secret, HS_ALGORITHMS)
        if isinstance(claims.get("exp"), bool) or not isinstance(claims.get("exp"), int | float):
            raise unauthorized("invalid_token", "The token's 'exp' claim must be a number.")
        if self.audience is None and "aud" in claims:
            raise unauthorized("invalid_audience", "The token names an audience this API does not check.")
        return Principal(user_id=_user_id(claims), claims=claims)

    async def _signing_key(self, token: str, alg: str) -> Any:
        import jwt

        assert self._jwks is not None
        try:
            signing_key = await asyncio.to_thread(self._jwks.get_signing_key_from_jwt, token)
        except jwt.PyJWKClientConnectionError:
            raise ApiError(503, "auth_unavailable", "The signing keys could not be fetched.") from None
        except jwt.PyJWTError:
            raise unauthorized("invalid_token", "The token's signing key is unknown.") from None
        if getattr(signing_key, "algorithm_name", alg) != alg:
            raise unauthorized("invalid_token", "The token's algorithm does not match its signing key.")
        return signing_key.key

    def _decode(self, token: str, key: Any, algorithms: list[str]) -> dict[str, Any]:
        import jwt

        options: dict[str, Any] = {"require": ["sub", "exp"], "verify_aud": self.audience is not None}
        try:
            return jwt.decode(
                token,
                key,
                algorithms=algorithms,
                audience=self.audience,
                issuer=self.issuer,
                options=options,  # type: ignore[arg-type]
                leeway=30,
            )
        except jwt.ExpiredSignatureError:
            raise unauthorized("token_expired", "The token has expired.") from None
        except jwt.InvalidAudienceError:
            raise unauthorized("invalid_audience", "The token is not meant for this API.") from None
        except jwt.InvalidIssuerError:
            raise unauthorized("invalid_issuer", "The token comes from an unexpected issuer.") from None
        except jwt.InvalidSignatureError:
            raise unauthorized("invalid_signature", "The token's signature is not valid.") from None
        except jwt.MissingRequiredClaimError as exc:
            raise unauthorized("invalid_token", f"The token has no '{exc.claim}' claim.") from None
        except jwt.PyJWTError:
            raise unauthorized("invalid_token", "The token is not valid.") from None
        except (TypeError, ValueError):
            raise unauthorized("invalid_token", "The token does not fit its signing key.") from None


def _user_id(claims: dict[str, Any]) -> str:
    try:
        return str(uuid.UUID(str(claims["sub"])))
    except (KeyError, ValueError):
        raise unauthorized("invalid_token", "The token's subject is not a user id.") from None


def mint_dev_token(
    secret: str,
    user_id: str,
    *,
    ttl_seconds: int = DEFAULT_DEV_TOKEN_TTL,
    issuer: str | None = None,
    audience: str | None = None,
    now: float | None = None,
) -> str:
    """An HS256 token for local development and tests."""
    import jwt

    issued = int(now if now is not None else time.time())
    claims: dict[str, Any] = {
        "sub": str(uuid.UUID(user_id)),
        "iat": issued,
        "exp": issued + ttl_seconds,
        "role": "authenticated",
    }
    if issuer:
        claims["iss"] = issuer
    if audience:
        claims["aud"] = audience
    return jwt.encode(claims, secret, algorithm="HS256")
