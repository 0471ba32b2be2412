"""Session login for the browser (CSRF enforced on its unsafe requests), tokens for REST clients,
roles, the createuser command and per-user throttling."""

from __future__ import annotations

from io import StringIO

import pytest
from django.contrib.auth.models import User
from django.core.management import CommandError, call_command
from rest_framework.test import APIClient
from rest_framework.throttling import AnonRateThrottle, UserRateThrottle

from backend.apps.accounts.throttles import CREDENTIAL_THROTTLES
from tests.jobs.conftest import Person

pytestmark = pytest.mark.django_db


def test_a_browser_logs_in_with_a_session_and_its_posts_need_the_csrf_token(alice: Person) -> None:
    browser = APIClient(enforce_csrf_checks=True)
    assert browser.get("/api/auth/csrf/").status_code == 204
    wrong = browser.post("/api/auth/login/", {"username": "alice", "password": "nope"}, format="json")
    assert wrong.status_code == 400 and wrong.json()["error"]["code"] == "invalid_credentials"

    login = browser.post("/api/auth/login/", {"username": "alice", "password": "pass-alice"}, format="json")

    assert login.status_code == 200 and login.json()["role"] == "analyst"
    assert browser.get("/api/auth/me/").json()["username"] == "alice"
    refused = browser.post("/api/jobs/", {"question": "PE below 15"}, format="json")
    assert refused.status_code == 403 and refused.json()["error"]["code"] == "permission_denied"
    csrf = browser.cookies["csrftoken"].value
    screen = browser.post(
        "/api/screens/", {"name": "s", "question": "PE below 15"}, format="json", HTTP_X_CSRFTOKEN=csrf
    )
    assert screen.status_code == 201
    assert browser.post("/api/auth/logout/", HTTP_X_CSRFTOKEN=csrf).status_code == 204
    assert browser.get("/api/auth/me/").status_code in {401, 403}


def test_a_rest_client_gets_a_token_and_can_revoke_it(admin: Person) -> None:
    client = APIClient()
    issued = client.post(
        "/api/auth/token/", {"username": "root", "password": "pass-root"}, format="json"
    ).json()
    assert issued["token"] == admin.token and issued["user"]["role"] == "admin"
    client.credentials(HTTP_AUTHORIZATION=f"Token {issued['token']}")
    assert client.get("/api/auth/me/").json() == {
        "id": admin.user.pk,
        "username": "root",
        "email": "",
        "role": "admin",
        "is_staff": True,
    }

    assert client.post("/api/auth/token/revoke/").status_code == 204
    assert client.get("/api/auth/me/").status_code == 401


def test_createuser_makes_analysts_and_admins_with_a_token() -> None:
    out = StringIO()
    call_command("createuser", "ana", "--password", "pw-ana-123", "--token", stdout=out)
    call_command("createuser", "boss", "--role", "admin", "--password", "pw-boss-123", stdout=StringIO())

    ana, boss = User.objects.get(username="ana"), User.objects.get(username="boss")
    assert (ana.is_staff, boss.is_staff, boss.is_superuser) == (False, True, True)
    assert ana.check_password("pw-ana-123")
    assert out.getvalue().splitlines()[0] == "created analyst ana"
    assert out.getvalue().splitlines()[1] == f"token {ana.auth_token.key}"
    with pytest.raises(CommandError, match="exists already"):
        call_command("createuser", "ana", "--password", "x")


def test_requests_beyond_the_rate_are_429_with_retry_after(
    alice: Person, monkeypatch: pytest.MonkeyPatch
) -> None:
    from django.core.cache import cache

    cache.clear()
    monkeypatch.setattr(UserRateThrottle, "THROTTLE_RATES", {"user": "3/minute", "anon": "2/minute"})
    monkeypatch.setattr(AnonRateThrottle, "THROTTLE_RATES", {"user": "3/minute", "anon": "2/minute"})

    statuses = [alice.client.get("/api/jobs/").status_code for _ in range(4)]
    anonymous = [APIClient().get("/api/market/stats/").status_code for _ in range(3)]

    assert statuses == [200, 200, 200, 429]
    assert anonymous[-1] == 429
    throttled = alice.client.get("/api/jobs/")
    assert throttled.json()["error"]["code"] == "throttled" and int(throttled["Retry-After"]) > 0
    cache.clear()


def test_password_guesses_are_limited_per_address_and_per_username_across_addresses(
    alice: Person, monkeypatch: pytest.MonkeyPatch
) -> None:
    from django.core.cache import cache

    cache.clear()
    rates = {"credentials": "3/minute", "credentials_user": "5/hour"}
    for throttle in CREDENTIAL_THROTTLES:
        monkeypatch.setattr(throttle, "THROTTLE_RATES", rates)
    guess = {"username": "alice", "password": "guess"}

    def attempt(address: str, path: str = "/api/auth/login/", body: dict[str, str] = guess) -> int:
        return APIClient(REMOTE_ADDR=address).post(path, body, format="json").status_code

    # One address: three guesses, then 429 even with the right password, and at the token endpoint too.
    assert [attempt("10.0.0.1") for _ in range(3)] == [400, 400, 400]
    assert attempt("10.0.0.1", body={"username": "alice", "password": "pass-alice"}) == 429
    assert attempt("10.0.0.1", "/api/auth/token/", {"username": "bob", "password": "x"}) == 429
    # Rotating addresses: the username's own limit (five an hour; four spent, the refused one included)
    # stops the guesser.
    assert [attempt(f"10.0.1.{n}") for n in range(2)] == [400, 429]
    throttled = APIClient(REMOTE_ADDR="10.0.2.1").post("/api/auth/login/", guess, format="json")
    assert throttled.json()["error"]["code"] == "throttled" and int(throttled["Retry-After"]) > 0
    # Another user is not held up by guesses at alice.
    assert attempt("10.0.3.1", body={"username": "carol", "password": "x"}) == 400
    cache.clear()
