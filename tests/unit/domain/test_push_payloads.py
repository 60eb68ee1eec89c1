"""The SNS message of a push (MessageStructure=json: one key per platform, its payload a JSON string) in
the APNs and FCM HTTP v1 shapes, within the push services' 4 KB; and the SMS within 1,600 characters."""

from __future__ import annotations

import json

import pytest
from trainer.domain.push_payloads import (
    PAYLOAD_LIMIT_BYTES,
    SMS_LIMIT,
    deep_link,
    push_message,
    sms_text,
)

LINK = deep_link("3c2d1e0f-9a8b-4c7d-8e6f-5a4b3c2d1e0f")
MESSAGE = "🏋️ Monday Upper Strength - Week 2\n\nMAIN WORKOUT\n1️⃣ BB Bench Press: 4×6 @ 70 kg (rest 2 min)"
LONG = "\n".join(f"{i}️⃣ Dumbbell Bulgarian split squat: 4×10 @ 22.5 kg (rest 90s) 💪🔥" for i in range(40))[
    :1600
]


def test_the_deep_link_opens_the_days_workout() -> None:
    assert LINK == "trainer://workouts/3c2d1e0f-9a8b-4c7d-8e6f-5a4b3c2d1e0f"


@pytest.mark.parametrize("platform,key", [("apns", "APNS"), ("apns_sandbox", "APNS_SANDBOX")])
def test_apns_payload_is_an_alert_with_title_body_sound_thread_and_the_deep_link(
    platform: str, key: str
) -> None:
    message = json.loads(push_message(platform, "Upper Strength", MESSAGE, LINK, {"date": "2026-03-09"}))  # type: ignore[arg-type]
    assert set(message) == {"default", key}
    payload = json.loads(message[key])
    assert payload == {
        "aps": {
            "alert": {"title": "Upper Strength", "body": MESSAGE},
            "sound": "default",
            "thread-id": "daily-workout",
        },
        "deep_link": LINK,
        "date": "2026-03-09",
    }
    assert message["default"] == MESSAGE


def test_fcm_payload_is_an_fcm_v1_message_with_notification_and_string_data() -> None:
    message = json.loads(push_message("fcm", "Upper Strength", MESSAGE, LINK, {"workout_id": "w-1"}))
    assert set(message) == {"default", "GCM"}
    payload = json.loads(message["GCM"])
    (v1,) = payload.values()
    assert set(payload) == {"fcmV1Message"} and set(v1) == {"message"}
    assert v1["message"]["notification"] == {"title": "Upper Strength", "body": MESSAGE}
    assert v1["message"]["data"] == {"deep_link": LINK, "workout_id": "w-1"}
    assert all(isinstance(value, str) for value in v1["message"]["data"].values()), "FCM data is strings"


@pytest.mark.parametrize("platform", ["apns", "apns_sandbox", "fcm"])
def test_a_long_message_is_cut_to_fit_the_push_services_limit(platform: str) -> None:
    message = json.loads(push_message(platform, "Upper Strength " * 20, LONG, LINK))  # type: ignore[arg-type]
    (key,) = set(message) - {"default"}
    assert len(message[key].encode("utf-8")) <= PAYLOAD_LIMIT_BYTES
    assert message["default"].endswith("…") and LONG.startswith(message["default"][:-1].rstrip())


def test_an_sms_is_the_whole_message_within_1600_characters() -> None:
    assert sms_text(MESSAGE) == MESSAGE
    long = sms_text("x" * 1000 + "\n" + "y" * 1000)
    assert len(long) <= SMS_LIMIT and long.endswith("…")
