"""Push tokens checked and spelled one way before they are stored (trainer.store.repositories.devices):
APNs hex in lowercase, one push service for both APNs platforms, FCM tokens of their alphabet and
shape. Pure functions, no database."""

from __future__ import annotations

import pytest
from trainer.store.repositories import RepositoryError
from trainer.store.repositories.devices import normalised_token, push_service, validate_registration

HEX = "0f1e2d3c4b5a69788796a5b4c3d2e1f0" * 2
FCM = "dGVzdC1pbnN0YW5jZS0x:APA91bH" + "x" * 140


def test_an_apns_token_has_one_spelling_on_either_platform() -> None:
    assert normalised_token("apns", HEX.upper()) == normalised_token("apns_sandbox", HEX) == HEX
    assert push_service("apns") == push_service("apns_sandbox") == "apns" != push_service("fcm")
    assert normalised_token("fcm", FCM.upper()) == FCM.upper(), "FCM tokens are case-sensitive"


@pytest.mark.parametrize(
    ("platform", "token"),
    [
        ("apns", HEX),
        ("apns", HEX.upper()),
        ("apns_sandbox", "a1" * 100),
        ("fcm", FCM),
        ("fcm", "APA91b" + "Z" * 150),
        ("fcm", "sample-fcm-registration-token:APA91bH0Sample0Device0Token0For0TrainerInvoke"),
    ],
)
def test_tokens_of_their_platforms_shape_are_taken(platform: str, token: str) -> None:
    validate_registration(platform, token, None, None, None)


@pytest.mark.parametrize(
    ("platform", "token"),
    [
        ("fcm", ":" * 30),
        ("fcm", "a:b:" + "c" * 40),
        ("fcm", "-" * 40),
        ("fcm", "instance:" + "." * 40),
        ("fcm", "short:APA91b"),
        ("fcm", "x" * 4097),
        ("apns", HEX[:-1]),
        ("apns", HEX[:62]),
        ("apns", "g" * 64),
        ("apns", "٠" * 64),
        ("apns_sandbox", HEX + ":"),
    ],
    ids=[
        "fcm-30-colons",
        "fcm-two-colons",
        "fcm-only-dashes",
        "fcm-dots",
        "fcm-too-short",
        "fcm-too-long",
        "apns-odd-length",
        "apns-too-short",
        "apns-not-hex",
        "apns-arabic-digits",
        "apns-colon",
    ],
)
def test_tokens_of_another_shape_are_refused(platform: str, token: str) -> None:
    with pytest.raises(RepositoryError, match="token is not"):
        validate_registration(platform, token, None, None, None)
