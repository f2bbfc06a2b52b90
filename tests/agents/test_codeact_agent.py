from __future__ import annotations

import pytest

from codeact import CodeActAgent, Context, ExecutionResult, RestrictedExecutor, UserError
from codeact.agents.code import parse_blocks
from codeact.events import AgentOutput, CodeOutputStream, ToolCall, ToolCallResult
from codeact.llms import ScriptedLLM
from tests.helpers import collect, kinds

pytestmark = pytest.mark.anyio


def lookup(city: str) -> float:
    """Population of a city, in millions.

    Args:
        city: The city's name.
    """
    return {"Oslo": 0.7, "Rome": 2.8}[city]


def test_parse_blocks() -> None:
    assert parse_blocks(
        "a <execute>x = 1</execute> b <execute>\n```python\nprint(x)\n```\n</execute>"
    ) == (
        ["x = 1", "print(x)"],
        None,
    )
    blocks, problem = parse_blocks("<execute>ok</execute> then <execute>print(1")
    assert blocks == ["ok"] and problem is not None and "without closing" in problem
    # a whole cell whose closing tag was left out runs (fresh17: sent back, the model asked
    # for the task again, twice)
    assert parse_blocks("<execute>ok</execute> <execute>\nx = 1\nprint(x)\n") == (
        ["ok", "x = 1\nprint(x)"],
        None,
    )
    assert parse_blocks("just an answer") == ([], None)


async def test_two_blocks_in_one_reply_run_in_order_in_one_session() -> None:
    llm = ScriptedLLM(
        [
            "<execute>\nx = 2\nprint('first')\n</execute>\nand\n<execute>\nprint('second', x * 21)\n</execute>",
            "42",
        ]
    )
    handler = CodeActAgent(llm=llm).run("go")
    events = await collect(handler)
    assert kinds(events) == [
        "agent_setup",
        "agent_input",
        "agent_stream",
        "agent_output",
        "tool_call",
        "code_output_stream",
        "tool_call_result",
        "tool_call",
        "code_output_stream",
        "tool_call_result",
        "agent_input",
        "agent_stream",
        "agent_output",
        "run_finished",
    ]
    calls = [e for e in events if isinstance(e, ToolCall)]
    assert [c.tool_name for c in calls] == ["execute", "execute"]
    assert calls[0].tool_kwargs == {"code": "x = 2\nprint('first')"}
    results = [e for e in events if isinstance(e, ToolCallResult)]
    assert results[1].execution is not None and results[1].execution["stdout"] == "second 42\n"
    streams = [e for e in events if isinstance(e, CodeOutputStream)]
    assert [s.text for s in streams] == ["first\n", "second 42\n"]
    assert all(s.tool_id == c.tool_id for s, c in zip(streams, calls, strict=True))
    fed_back = llm.requests[1].messages[-1]
    assert fed_back.role == "user"
    assert "Execution result of block 1:\nfirst" in fed_back.text
    assert "Execution result of block 2:\nsecond 42" in fed_back.text
    assert (await handler).response.text == "42"


async def test_system_prompt_lists_tools_example_and_user_prompt() -> None:
    llm = ScriptedLLM(["done"])
    agent = CodeActAgent(llm=llm, tools=[lookup], system_prompt="Answer in French.")
    await agent.run("x")
    system = llm.requests[0].messages[0]
    assert system.role == "system"
    assert "from tools import <name>" in system.text
    assert (
        "def lookup(city: str) -> float:" in system.text and "Population of a city" in system.text
    )
    assert "persistent" in system.text and "<execute>" in system.text and "Example:" in system.text
    assert "every value the question asks for" in system.text
    assert system.text.rstrip().endswith("Answer in French.")
    assert llm.requests[0].tools == []  # no native tool calling needed


async def test_instructions_can_be_replaced() -> None:
    llm = ScriptedLLM(["ok"])
    await CodeActAgent(llm=llm, code_act_system_prompt="Custom. {tools}").run("x")
    assert llm.requests[0].messages[0].text.startswith("Custom.")
    with pytest.raises(UserError, match="placeholder"):
        CodeActAgent(llm=llm, code_act_system_prompt="no placeholder")


async def test_tools_are_importable_in_the_sandbox_without_binding_them_twice() -> None:
    llm = ScriptedLLM(
        [
            "<execute>\nfrom tools import lookup\nlookup('Oslo') + lookup(city='Rome')\n</execute>",
            "3.5",
        ]
    )
    handler = CodeActAgent(llm=llm, tools=[lookup]).run("x")
    events = await collect(handler)
    res = next(e for e in events if isinstance(e, ToolCallResult))
    assert res.tool_output.content == "Out: 3.5"


async def test_state_persists_across_turns_on_the_same_context() -> None:
    llm = ScriptedLLM(
        ["<execute>\ntotal = 40\n</execute>", "set", "<execute>\ntotal + 2\n</execute>", "42"]
    )
    agent = CodeActAgent(llm=llm)
    async with Context() as ctx:
        await agent.run("set it", ctx=ctx)
        second = agent.run("use it", ctx=ctx)
        events = await collect(second)
        res = next(e for e in events if isinstance(e, ToolCallResult))
        assert res.tool_output.content == "Out: 42"
        await agent.reset(ctx)
        ex = agent.executor_for(ctx)
        assert (await ex.execute("total")).error.type == "NameError"  # type: ignore[union-attr]


async def test_session_is_a_deprecated_name_of_executor_for() -> None:
    agent = CodeActAgent(llm=ScriptedLLM([]))
    async with Context() as ctx:
        with pytest.warns(DeprecationWarning, match=r"use CodeActAgent\.executor_for\(ctx\)"):
            old = agent.session(ctx)
        assert old is agent.executor_for(ctx)  # the same executor, made once for the context


async def test_an_error_then_a_fix_and_an_answer_after_a_traceback_is_reprompted() -> None:
    llm = ScriptedLLM(
        [
            "<execute>\nvalue = 10 / 0\n</execute>",
            "The answer is 5.",  # ignores the traceback: must be re-prompted
            "<execute>\nvalue = 10 / 2\nprint(value)\n</execute>",
            "The answer is 5.0.",
        ]
    )
    handler = CodeActAgent(llm=llm).run("10 / 2?")
    events = await collect(handler)
    outputs = [e for e in events if isinstance(e, AgentOutput)]
    assert (
        outputs[1].retry_messages
        and "Your last code block failed" in outputs[1].retry_messages[1].text
    )
    assert "ZeroDivisionError" in outputs[1].retry_messages[1].text
    assert (await handler).response.text == "The answer is 5.0."
    # the retry exchange is not stored in memory
    texts = [m.text for m in handler.ctx.memory.get_all()]
    assert not any("Your last code block failed" in t for t in texts)


async def test_unclosed_tag_is_a_format_retry() -> None:
    llm = ScriptedLLM(["<execute>\nprint(1 +\n", "<execute>\nprint(1)\n</execute>", "1"])
    handler = CodeActAgent(llm=llm).run("x")
    events = await collect(handler)
    first = next(e for e in events if isinstance(e, AgentOutput))
    assert first.retry_messages and "without closing" in first.retry_messages[1].text
    assert (await handler).response.text == "1"
    assert len(llm.requests) == 3


async def test_a_whole_cell_left_unclosed_runs() -> None:
    llm = ScriptedLLM(["<execute>\nx = 6 * 7\nprint(x)\n", "42"])
    handler = CodeActAgent(llm=llm).run("x")
    events = await collect(handler)
    results = [e for e in events if isinstance(e, ToolCallResult)]
    assert [str(r.tool_output.content).strip() for r in results] == ["42"]
    assert (await handler).response.text == "42" and len(llm.requests) == 2


async def test_final_answer_with_a_dict_returns_data() -> None:
    llm = ScriptedLLM(
        [
            "<execute>\nfinal_answer({'city': 'Rome', 'population': (2.8, 'M')})\nprint('never')\n</execute>"
        ]
    )
    handler = CodeActAgent(llm=llm).run("x")
    events = await collect(handler)
    result = await handler
    assert result.value == {"city": "Rome", "population": [2.8, "M"]}
    assert result.structured_response == result.value
    assert '"city": "Rome"' in result.response.text
    assert kinds(events)[-1] == "run_finished" and len(llm.requests) == 1


async def test_blocks_after_a_failing_block_are_skipped() -> None:
    llm = ScriptedLLM(
        [
            "<execute>\n1/0\n</execute><execute>\nprint('late')\n</execute>",
            "<execute>\nprint('fixed')\n</execute>",
            "ok",
        ]
    )
    handler = CodeActAgent(llm=llm).run("x")
    events = await collect(handler)
    res = [e for e in events if isinstance(e, ToolCallResult)]
    assert "ZeroDivisionError" in res[0].tool_output.content
    assert "Not run" in res[1].tool_output.content and res[1].tool_output.is_error
    assert res[2].tool_output.content == "fixed"


async def test_code_execute_fn_sync_and_async() -> None:
    seen: list[str] = []

    def run_code(code: str) -> dict[str, str]:
        seen.append(code)
        return {"stdout": "fake output"}

    llm = ScriptedLLM(["<execute>\nanything()\n</execute>", "done"])
    handler = CodeActAgent(llm=llm, code_execute_fn=run_code).run("x")
    events = await collect(handler)
    assert seen == ["anything()"]
    assert (
        next(e for e in events if isinstance(e, ToolCallResult)).tool_output.content
        == "fake output"
    )

    async def run_async(code: str) -> ExecutionResult:
        return ExecutionResult(value=repr(len(code)))

    llm = ScriptedLLM(["<execute>\nabc\n</execute>", "done"])
    handler = CodeActAgent(llm=llm, code_execute_fn=run_async).run("x")
    events = await collect(handler)
    assert next(e for e in events if isinstance(e, ToolCallResult)).tool_output.content == "Out: 3"


async def test_executor_instance_is_shared_and_left_open() -> None:
    async with RestrictedExecutor() as ex:
        llm = ScriptedLLM(
            ["<execute>\nshared = 1\n</execute>", "a", "<execute>\nshared + 1\n</execute>", "b"]
        )
        agent = CodeActAgent(llm=llm, executor=ex)
        await agent.run("one")  # its own context, closed at the end of the run
        await agent.run("two")
        assert (await ex.execute("shared")).value == "1"  # still open, state shared


async def test_a_context_tool_is_refused_for_codeact() -> None:
    def needs_ctx(ctx: Context) -> None:
        """x"""

    with pytest.raises(UserError, match="cannot be called from sandboxed code"):
        CodeActAgent(llm=ScriptedLLM([]), tools=[needs_ctx])


async def test_sandbox_of_a_run_without_context_is_closed() -> None:
    llm = ScriptedLLM(["<execute>\nopen('f.txt', 'w').write('x')\n</execute>", "done"])
    agent = CodeActAgent(llm=llm, executor="restricted")
    handler = agent.run("x")
    await handler
    assert handler.ctx.resources == {}


async def test_the_sandbox_starts_with_the_first_code_block_not_before() -> None:
    made: list[RestrictedExecutor] = []

    def factory() -> RestrictedExecutor:
        made.append(RestrictedExecutor(isolation="process"))
        return made[-1]

    llm = ScriptedLLM(["No code needed: hello.", "<execute>print(6 * 7)</execute>", "42"])
    agent = CodeActAgent(llm=llm, executor=factory)
    async with Context() as ctx:
        await agent.run("Say hello", ctx=ctx)
        assert made and made[0].workdir is None  # a conversation without code: no sandbox
        out = await agent.run("Compute", ctx=ctx)
        assert made[0].workdir is not None and "42" in out.response.text


def test_the_old_module_name_still_imports_with_a_deprecation_warning() -> None:
    from codeact.agents import code

    with pytest.warns(DeprecationWarning, match=r"codeact\.agents\.code\b"):
        from codeact.agents.codeact import CodeActAgent as Old
    assert Old is code.CodeActAgent
    assert code.CodeActAgent.__module__ == "codeact.agents.code"
    with pytest.raises(ImportError):
        from codeact.agents.codeact import NoSuchName  # noqa: F401
