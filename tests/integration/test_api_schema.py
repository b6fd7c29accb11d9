"""The OpenAPI schema is the contract: every operation, fed generated valid and invalid input
against the live server, answers without a server error, with a status code the schema lists,
and with a body the schema describes.

The server is the real gunicorn on the test database; its broker is a throw-away vhost, so the
submissions this test creates never reach the other tests' workers.
"""

from __future__ import annotations

import uuid
from collections.abc import Iterator

import pytest
import schemathesis
from django.contrib.auth import get_user_model
from hypothesis import HealthCheck, settings
from rest_framework.authtoken.models import Token
from schemathesis.checks import not_a_server_error
from schemathesis.specs.openapi.checks import (
    content_type_conformance,
    response_schema_conformance,
    status_code_conformance,
)

from tests.support.rabbitmq import fresh_vhost
from tests.support.stack import WebServer, stack_environment

pytestmark = pytest.mark.integration

# gunicorn's default ``limit_request_line``: a longer request line is refused with 414 by the
# server in front of the API, before any view runs, so it is outside the schema's contract.
GUNICORN_REQUEST_LINE_LIMIT = 4094

CHECKS = [
    not_a_server_error,
    status_code_conformance,
    content_type_conformance,
    response_schema_conformance,
]


@pytest.fixture(scope="module")
def api_server(live_db) -> Iterator[WebServer]:
    with fresh_vhost() as broker_url:
        server = WebServer(
            stack_environment(
                CELERY_BROKER_URL=broker_url,
                SKILLGATE_SUBMISSION_RATE="1000000/hour",
                # No generated URL may make the server reach out to the internet.
                SKILLGATE_GIT_ALLOWED_HOSTS="git.invalid",
            )
        )
        server.start()
        yield server
        server.stop()


@pytest.fixture(scope="module")
def operator_token(live_db) -> str:
    user = get_user_model().objects.create_superuser(
        f"schema-{uuid.uuid4().hex[:8]}", password="pw-for-tests"
    )
    return Token.objects.create(user=user).key


def served_schema() -> dict:
    """The schema exactly as ``/api/schema/`` serves it (generated the same way, in-process, so
    the operations are known when pytest collects the tests)."""
    from drf_spectacular.generators import SchemaGenerator

    return SchemaGenerator().get_schema(request=None, public=True)


schema = schemathesis.openapi.from_dict(served_schema())


@schema.parametrize()
@settings(
    max_examples=30,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much],
)
def test_every_operation_keeps_the_schemas_promises(case, api_server, operator_token):
    response = case.call(
        base_url=api_server.url, headers={"Authorization": f"Token {operator_token}"}
    )
    if refused_by_the_front_server(response):
        return
    case.validate_response(response, checks=CHECKS)


def refused_by_the_front_server(response) -> bool:
    """A generated query string can outgrow the request line gunicorn accepts; the 414 it then
    answers is the web server's, and is expected exactly when the line really is too long."""
    if response.status_code != 414:
        return False
    request = response.request
    target = request.path_url
    request_line = f"{request.method} {target} HTTP/1.1"
    assert len(request_line.encode()) > GUNICORN_REQUEST_LINE_LIMIT, request_line
    return True
