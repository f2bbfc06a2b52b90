"""Regression tests for the small refusals of issue 24, over real HTTP on 127.0.0.1: event ids
out of range or not integers, numbers past a double, uploads into a thread that does not
exist yet, same-origin by scheme, host and port, and thread ids in one Unicode form."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import httpx
import pytest

from codeact import FunctionAgent
from codeact.llms import ScriptedLLM
from codeact.server import SQLiteStore, create_app
from tests.server.agui_check import check_stream, parse_sse
from tests.server.test_playground_routes import by_name, codeact, post, upload


def body(thread: str, run: str = "r1", **extra: Any) -> dict[str, Any]:
    messages = [{"role": "user", "content": "hi"}]
    return {"threadId": thread, "runId": run, "messages": messages} | extra


@pytest.fixture
def srv(serve: Any, tmp_path: Path) -> Any:
    agent = FunctionAgent(llm=ScriptedLLM(["done"] * 20))
    return serve(create_app(agent, store=SQLiteStore(tmp_path / "s.db")))


@pytest.mark.parametrize("last", ["9223372036854775808", "1" * 40, "1.5", "true", "-2", "x"])
def test_last_event_id_header_out_of_range_or_not_an_integer_is_400(srv: Any, last: str) -> None:
    r = httpx.post(srv.url + "/", json=body("t"), headers={"Last-Event-ID": last})
    assert r.status_code == 400 and "Last-Event-ID" in r.json()["error"], r.text


@pytest.mark.parametrize("last", [9223372036854775808, 10**30, 1.5, True, "1.5", -5, None])
def test_last_event_id_in_a_connect_body_must_be_an_integer_in_range(srv: Any, last: Any) -> None:
    assert httpx.post(srv.url + "/", json=body("t")).status_code == 200
    r = httpx.post(srv.url + "/connect", json={"threadId": "t", "runId": "r1", "lastEventId": last})
    assert r.status_code == 400 and "lastEventId" in r.json()["error"], r.text
    ok = httpx.post(srv.url + "/connect", json={"threadId": "t", "runId": "r1", "lastEventId": 1})
    assert ok.status_code == 200 and parse_sse(ok.content)[-1]["type"] == "RUN_FINISHED"


def test_a_number_past_a_double_is_refused_not_turned_into_null(srv: Any) -> None:
    raw = b'{"threadId":"t","runId":"r1","messages":[{"role":"user","content":"hi"}],'
    raw += b'"state":{"x":1e400}}'
    r = httpx.post(srv.url + "/", content=raw, headers={"content-type": "application/json"})
    assert r.status_code == 400 and "1e400" in r.json()["error"], r.text


def test_thread_ids_not_in_nfc_form_are_refused(srv: Any) -> None:
    nfc, nfd = "caf\u00e9", "cafe\u0301"
    assert check_stream(parse_sse(httpx.post(srv.url + "/", json=body(nfc)).content))
    r = httpx.post(srv.url + "/", json=body(nfd))
    assert r.status_code == 400 and r.json()["code"] == "bad_id", r.text
    assert httpx.post(srv.url + "/history", json={"threadId": nfd}).status_code == 400


def test_same_origin_compares_scheme_host_and_port(srv: Any) -> None:
    port = srv.port
    for origin, status in [
        (f"http://127.0.0.1:{port}", 200),
        (f"https://127.0.0.1:{port}", 403),
        (f"http://127.0.0.1:{port + 1}", 403),
        ("http://127.0.0.1", 403),
        (f"http://127.0.0.1:{port}/path", 403),
        (f"http://127.0.0.1:{port}:1", 403),
    ]:
        r = httpx.post(srv.url + "/history", json={"threadId": "o"}, headers={"Origin": origin})
        assert r.status_code == status, (origin, r.text)


def test_an_upload_into_a_new_thread_makes_the_uploader_its_owner_in_the_store(
    serve: Any, tmp_path: Path
) -> None:
    db = tmp_path / "s.db"
    app = create_app(codeact(["done"] * 5), store=SQLiteStore(db), authenticate=by_name)
    first = serve(app)
    r = post(first.url, "/files/upload", upload("new", "a.txt", b"hello"), user="bob")
    assert r.status_code == 200, r.text
    first.stop()  # a restart: what the process remembered is gone, the store is not
    again = serve(create_app(codeact(["done"] * 5), store=SQLiteStore(db), authenticate=by_name))
    taken = post(again.url, "/", body("new"), user="alice")
    assert taken.status_code == 403, taken.text
    assert post(again.url, "/history", {"threadId": "new"}, user="alice").status_code == 404
    refused = post(again.url, "/files/upload", upload("new", "b.txt", b"x"), user="alice")
    assert refused.status_code == 404, refused.text
    mine = post(again.url, "/", body("new"), user="bob")
    assert check_stream(parse_sse(mine.content))[-1] == "RUN_FINISHED"
