"""Bearer-token verification: one test per way a token is refused, in both modes (HS256 secret and
JWKS). The JWKS client here serves keys from memory; tests/integration/api/test_api_routes.py fetches a
JWKS over HTTP from 127.0.0.1."""

from __future__ import annotations

import json
import time
import uuid
from typing import Any

import jwt
import pytest
from cryptography.hazmat.primitives.asymmetric import ec, rsa
from jwt.algorithms import ECAlgorithm, RSAAlgorithm
from trainer.api.auth import TokenVerifier, bearer_token, mint_dev_token
from trainer.api.errors import ApiError
from trainer.settings import LOCAL_JWT_SECRET, ConfigurationError, Settings

USER = "5b0f3a56-1a0e-4c4e-9a57-6a3cf0f5c001"
SECRET = "unit-test-secret-0123456789abcdef0123"
ISSUER = "https://issuer.example/pool"
AUDIENCE = "trainer-app"


def settings(**overrides: Any) -> Settings:
    return Settings.model_validate({"TRAINER_JWT_SECRET": SECRET, **overrides})


def hs_token(secret: str = SECRET, **claims: Any) -> str:
    now = int(time.time())
    body = {"sub": USER, "iat": now, "exp": now + 600, **claims}
    return jwt.encode({k: v for k, v in body.items() if v is not None}, secret, algorithm="HS256")


async def refused(verifier: TokenVerifier, token: str) -> ApiError:
    with pytest.raises(ApiError) as info:
        await verifier.verify(token)
    assert info.value.status == 401
    assert info.value.headers == {"WWW-Authenticate": "Bearer"}
    return info.value


# --- the Authorization header -------------------------------------------------------------------


@pytest.mark.parametrize("header", [None, "", "Bearer", "Bearer   ", "Basic dXNlcjpwYXNz", "Token abc"])
def test_missing_or_non_bearer_header_is_401(header: str | None) -> None:
    with pytest.raises(ApiError) as info:
        bearer_token(header)
    assert (info.value.status, info.value.code) == (401, "missing_token")


def test_bearer_scheme_is_case_insensitive() -> None:
    assert bearer_token("bearer abc.def.ghi") == "abc.def.ghi"


# --- HS256 ------------------------------------------------------------------------------------------


async def test_hs256_valid_token_gives_the_subject() -> None:
    principal = await TokenVerifier(settings()).verify(hs_token())
    assert principal.user_id == USER


async def test_hs256_malformed_token_is_401() -> None:
    assert (await refused(TokenVerifier(settings()), "not-a-jwt")).code == "invalid_token"


async def test_hs256_expired_token_is_401() -> None:
    token = hs_token(exp=int(time.time()) - 3600)
    assert (await refused(TokenVerifier(settings()), token)).code == "token_expired"


async def test_hs256_wrong_secret_is_401() -> None:
    token = hs_token(secret="another-secret-that-is-long-enough-000")
    assert (await refused(TokenVerifier(settings()), token)).code == "invalid_signature"


async def test_hs256_wrong_audience_is_401_when_audience_configured() -> None:
    verifier = TokenVerifier(settings(TRAINER_JWT_AUDIENCE=AUDIENCE))
    assert (await refused(verifier, hs_token(aud="someone-else"))).code == "invalid_audience"
    assert (await refused(verifier, hs_token())).code == "invalid_token"
    assert (await verifier.verify(hs_token(aud=AUDIENCE))).user_id == USER


async def test_hs256_wrong_issuer_is_401_when_issuer_configured() -> None:
    verifier = TokenVerifier(settings(TRAINER_JWT_ISSUER=ISSUER))
    assert (await refused(verifier, hs_token(iss="https://evil.example"))).code == "invalid_issuer"
    assert (await verifier.verify(hs_token(iss=ISSUER))).user_id == USER


async def test_token_without_sub_or_exp_is_401() -> None:
    verifier = TokenVerifier(settings())
    assert (await refused(verifier, hs_token(sub=None))).code == "invalid_token"
    assert (await refused(verifier, hs_token(exp=None))).code == "invalid_token"


async def test_non_uuid_subject_is_401() -> None:
    assert (await refused(TokenVerifier(settings()), hs_token(sub="alice"))).code == "invalid_token"


async def test_unsigned_token_is_401() -> None:
    token = jwt.encode({"sub": USER, "exp": int(time.time()) + 60}, key="", algorithm="none")
    assert (await refused(TokenVerifier(settings()), token)).code == "invalid_token"


async def test_mint_dev_token_round_trips_with_issuer_and_audience() -> None:
    verifier = TokenVerifier(settings(TRAINER_JWT_ISSUER=ISSUER, TRAINER_JWT_AUDIENCE=AUDIENCE))
    token = mint_dev_token(SECRET, USER, ttl_seconds=60, issuer=ISSUER, audience=AUDIENCE)
    assert (await verifier.verify(token)).user_id == USER
    stale = mint_dev_token(SECRET, USER, ttl_seconds=60, now=time.time() - 3600)
    assert (await refused(TokenVerifier(settings()), stale)).code == "token_expired"


# --- JWKS (RS256 / ES256) -----------------------------------------------------------------------------


class MemoryJWKClient(jwt.PyJWKClient):
    """PyJWKClient with the HTTP fetch replaced by an in-memory JWKS (no I/O in unit tests)."""

    def __init__(self, jwks: dict[str, Any]) -> None:
        super().__init__("https://jwks.invalid/.well-known/jwks.json", cache_keys=True)
        self._jwks = jwks
        self.fetches = 0

    def fetch_data(self) -> Any:
        self.fetches += 1
        return self._jwks


def public_jwk(private_key: Any, kid: str, alg: str) -> dict[str, Any]:
    algorithm = RSAAlgorithm if alg == "RS256" else ECAlgorithm
    jwk = json.loads(algorithm.to_jwk(private_key.public_key()))
    return {**jwk, "kid": kid, "alg": alg, "use": "sig"}


RSA_KEY = rsa.generate_private_key(public_exponent=65537, key_size=2048)
EC_KEY = ec.generate_private_key(ec.SECP256R1())
OTHER_RSA_KEY = rsa.generate_private_key(public_exponent=65537, key_size=2048)
JWKS = {"keys": [public_jwk(RSA_KEY, "rsa-1", "RS256"), public_jwk(EC_KEY, "ec-1", "ES256")]}


def signed(key: Any, kid: str, alg: str, **claims: Any) -> str:
    now = int(time.time())
    body = {"sub": USER, "iat": now, "exp": now + 600, "iss": ISSUER, "aud": AUDIENCE, **claims}
    return jwt.encode(body, key, algorithm=alg, headers={"kid": kid})


def jwks_verifier() -> tuple[TokenVerifier, MemoryJWKClient]:
    client = MemoryJWKClient(JWKS)
    cfg = settings(TRAINER_JWT_ISSUER=ISSUER, TRAINER_JWT_AUDIENCE=AUDIENCE)
    return TokenVerifier(cfg, jwks_client=client), client


@pytest.mark.parametrize(("key", "kid", "alg"), [(RSA_KEY, "rsa-1", "RS256"), (EC_KEY, "ec-1", "ES256")])
async def test_jwks_valid_token_gives_the_subject(key: Any, kid: str, alg: str) -> None:
    verifier, _ = jwks_verifier()
    assert verifier.mode == "jwks"
    assert (await verifier.verify(signed(key, kid, alg))).user_id == USER


async def test_jwks_keys_are_cached_between_verifications() -> None:
    verifier, client = jwks_verifier()
    for _ in range(3):
        await verifier.verify(signed(RSA_KEY, "rsa-1", "RS256"))
    assert client.fetches == 1


async def test_jwks_expired_token_is_401() -> None:
    verifier, _ = jwks_verifier()
    token = signed(RSA_KEY, "rsa-1", "RS256", exp=int(time.time()) - 3600)
    assert (await refused(verifier, token)).code == "token_expired"


async def test_jwks_token_signed_by_another_key_is_401() -> None:
    verifier, _ = jwks_verifier()
    token = signed(OTHER_RSA_KEY, "rsa-1", "RS256")
    assert (await refused(verifier, token)).code == "invalid_signature"


async def test_jwks_unknown_key_id_is_401() -> None:
    verifier, _ = jwks_verifier()
    token = signed(OTHER_RSA_KEY, "rotated-away", "RS256")
    assert (await refused(verifier, token)).code == "invalid_token"


async def test_jwks_wrong_audience_is_401() -> None:
    verifier, _ = jwks_verifier()
    token = signed(RSA_KEY, "rsa-1", "RS256", aud="another-client")
    assert (await refused(verifier, token)).code == "invalid_audience"


async def test_jwks_wrong_issuer_is_401() -> None:
    verifier, _ = jwks_verifier()
    token = signed(RSA_KEY, "rsa-1", "RS256", iss="https://evil.example")
    assert (await refused(verifier, token)).code == "invalid_issuer"


async def test_jwks_mode_refuses_hs256_even_with_the_configured_secret() -> None:
    verifier, _ = jwks_verifier()
    token = hs_token(iss=ISSUER, aud=AUDIENCE)
    assert (await refused(verifier, token)).code == "invalid_token"


@pytest.mark.parametrize(
    ("key", "kid", "alg"),
    [(EC_KEY, "rsa-1", "ES256"), (RSA_KEY, "ec-1", "RS256")],
    ids=["ES256 token, RSA key", "RS256 token, EC key"],
)
async def test_jwks_token_whose_alg_does_not_match_its_keys_type_is_401(key: Any, kid: str, alg: str) -> None:
    """This was a 500 before authentication."""
    verifier, _ = jwks_verifier()
    assert (await refused(verifier, signed(key, kid, alg))).code == "invalid_token"


async def test_string_exp_is_401() -> None:
    now = int(time.time())
    token = jwt.encode({"sub": USER, "iat": now, "exp": str(now + 600)}, SECRET, algorithm="HS256")
    assert (await refused(TokenVerifier(settings()), token)).code == "invalid_token"


async def test_an_audience_nobody_configured_is_refused() -> None:
    """Without TRAINER_JWT_AUDIENCE any aud used to pass; now a token that names one is refused."""
    assert (await refused(TokenVerifier(settings()), hs_token(aud="someone-else"))).code == "invalid_audience"


def test_a_deployed_function_builds_no_verifier_on_the_public_default_secret() -> None:
    """The function refuses to start first (tests/unit/settings/test_function_settings.py); the verifier holds
    the same line for settings that never went through that check."""
    deployed = settings(TRAINER_JWT_SECRET=LOCAL_JWT_SECRET, AWS_LAMBDA_FUNCTION_NAME="trainer-ApiFunction")
    with pytest.raises(ConfigurationError, match="TRAINER_JWKS_URL is not set and TRAINER_JWT_SECRET"):
        TokenVerifier(deployed)
    assert TokenVerifier(settings(TRAINER_JWT_SECRET=LOCAL_JWT_SECRET)).mode == "hs256", "locally it is fine"
    assert TokenVerifier(settings(AWS_LAMBDA_FUNCTION_NAME="trainer-ApiFunction")).mode == "hs256"
    jwks = settings(TRAINER_JWT_SECRET=LOCAL_JWT_SECRET, AWS_LAMBDA_FUNCTION_NAME="trainer-ApiFunction")
    assert TokenVerifier(jwks.model_copy(update={"jwks_url": "https://issuer.example/jwks"})).mode == "jwks"


async def test_hs256_mode_refuses_asymmetric_tokens() -> None:
    token = signed(RSA_KEY, "rsa-1", "RS256")
    assert (await refused(TokenVerifier(settings()), token)).code == "invalid_token"


def test_user_ids_are_normalised() -> None:
    upper = str(uuid.UUID(USER)).upper()
    token = mint_dev_token(SECRET, upper)
    assert jwt.decode(token, SECRET, algorithms=["HS256"])["sub"] == USER


# --- `trainer token` ------------------------------------------------------------------------------


async def test_cli_token_mints_a_token_the_verifier_accepts(capsys: pytest.CaptureFixture[str]) -> None:
    from trainer_dev.cli import build_parser, cmd_token

    cfg = settings(TRAINER_JWT_ISSUER=ISSUER, TRAINER_JWT_AUDIENCE=AUDIENCE)
    args = build_parser(cfg).parse_args(["token", "--user", USER, "--ttl", "120"])
    assert cmd_token(cfg, args) == 0
    token = capsys.readouterr().out.strip()
    assert (await TokenVerifier(cfg).verify(token)).user_id == USER
    claims = jwt.decode(token, SECRET, algorithms=["HS256"], audience=AUDIENCE)
    assert claims["exp"] - claims["iat"] == 120


def test_cli_token_refuses_a_non_uuid_user() -> None:
    from trainer_dev.cli import build_parser

    with pytest.raises(SystemExit):
        build_parser(settings()).parse_args(["token", "--user", "alice"])
