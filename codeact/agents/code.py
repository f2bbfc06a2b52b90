"""CodeActAgent: the LLM acts by writing Python in ``<execute>...</execute>`` blocks."""

from __future__ import annotations

import contextlib
import json
import re
import warnings
import weakref
from collections.abc import Callable, Sequence
from typing import Any, Literal

from codeact._messages import ChatMessage, ToolCallRequest
from codeact.agents._answers import AnswerPolicy, record_cells
from codeact.agents._atlimit import (
    answer_at_limit,
    answer_from_fix,
    is_last_step,
    last_step_note,
    stuck_answer,
)
from codeact.agents._blocks import PREVIEW_LINES as PREVIEW_LINES
from codeact.agents._blocks import describe_files as describe_files
from codeact.agents._blocks import parse_blocks as parse_blocks
from codeact.agents._colfix import recover_cell
from codeact.agents._function_executor import CodeExecuteFn as CodeExecuteFn
from codeact.agents._function_executor import FunctionExecutor as FunctionExecutor
from codeact.agents._handoff import HandoffTool, SandboxHandoff
from codeact.agents._loop import current_call
from codeact.agents._prompts import CODEACT_INSTRUCTIONS as CODEACT_INSTRUCTIONS
from codeact.agents._prompts import MCP_SECTION, TOOLS_SECTION
from codeact.agents._prompts import SMALL_MODEL_INSTRUCTIONS as SMALL_MODEL_INSTRUCTIONS
from codeact.agents._prompts import render_tool_stubs as render_tool_stubs
from codeact.agents._render import EXECUTE, render_code_rounds
from codeact.agents._resample import (
    LOOP_NOTE,
    MAX_RESAMPLES,
    RESAMPLE_TEMPERATURE,
    loop_start,
    looping,
    repeat_note,
    repeated_failure,
)
from codeact.agents._selfcheck import SelfCheck
from codeact.agents._style_state import CodeActRunState
from codeact.agents._suggest import taken_over_note
from codeact.agents.base import BaseAgent, RunState, StepContext
from codeact.agents.validators import AnswerValidator
from codeact.context import Context
from codeact.errors import UserError
from codeact.events import AgentOutput, CodeOutputStream, ToolCallResult
from codeact.executors.base import (
    CodeExecutor,
    OutputCallback,
    check_cell_tools,
    get_executor,
)
from codeact.llms.base import sampling
from codeact.mcp import MCPTool
from codeact.tools import BaseTool, ToolMetadata, ToolOutput

ExecutorSpec = CodeExecutor | str | Callable[[], CodeExecutor]

_SOLUTION = re.compile(r"</?solution>")
_NOT_RUN = "[Not run: an earlier block in this reply failed or ended the task.]"
SEARCH_TOOLS = "search_tools"


class CodeActAgent(BaseAgent):
    """An agent whose actions are Python code blocks run by a ``CodeExecutor``.

    ``executor`` is an executor instance (shared by every conversation), a name such as
    ``"restricted"`` or ``"docker"``, or a zero-argument factory (e.g. a
    ``codeact.executors.SandboxSpec``); with a name or a factory, each ``Context`` gets its own
    executor (``executor_for(ctx)``), closed by ``await ctx.aclose()`` (or at the end of a run
    that created its own context). The default is ``RestrictedExecutor``.
    ``code_execute_fn`` instead takes any sync or async callable ``code -> str | dict |
    ExecutionResult`` (LlamaIndex's style). Tools are made importable in the session
    (``from tools import name``); the agent binds them to the executor itself.

    Answer options (off by default; ``codeact run`` turns them on when files are given):
    ``require_execution`` accepts a final answer only after a cell of the turn ran without an
    error, sending the model back up to ``execution_nudges`` times; ``answer_validators``
    (see ``codeact.agents.validators``) check or normalise the answer, and a ``ModelRetry``
    sends the model back up to ``max_answer_retries`` times (after that the last answer is
    kept); ``lenient_code_blocks`` runs fenced Python blocks of a reply that has no
    ``<execute>`` block, unless a cell of the turn already succeeded; ``self_check``
    (``SelfCheck``) has the model rate its code against the question once per run, from its
    first token's probabilities, and sends it back once below a threshold. Every send-back is an
    ``AnswerRetry`` event. ``SMALL_MODEL_INSTRUCTIONS`` is a system prompt tuned for small
    local models (pass it as ``code_act_system_prompt``). ``recovery_hints`` (on by default)
    adds hints to a failed cell's output: the frame's real columns and dtypes on a
    ``KeyError``/``AttributeError``, how to read numbers stored as text, a different hint when
    the same error repeats. On the run's last step the model is told that code will not run any
    more; if it writes code anyway and the question asks for ``@name[...]`` values, the answer
    is made of the values successful cells printed (``raw["at_limit"] == "steps"``).
    """

    tool_concurrency = 1  # blocks of one reply run in order, in the same session

    def __init__(
        self,
        *,
        executor: ExecutorSpec | None = None,
        code_execute_fn: CodeExecuteFn | None = None,
        code_act_system_prompt: str | None = None,
        cell_timeout: float | None = None,
        observation_max_chars: int = 4000,
        require_execution: bool = False,
        execution_nudges: int = 2,
        answer_validators: Sequence[AnswerValidator] = (),
        max_answer_retries: int = 2,
        lenient_code_blocks: bool = False,
        self_check: SelfCheck | None = None,
        images_to_llm: bool = False,
        recovery_hints: bool = True,
        **kwargs: Any,
    ) -> None:
        super().__init__(**kwargs)
        if execution_nudges < 0 or max_answer_retries < 0:
            raise UserError("execution_nudges and max_answer_retries must be 0 or more")
        self.answers = AnswerPolicy(
            require_execution=require_execution,
            execution_nudges=execution_nudges,
            validators=tuple(answer_validators),
            max_answer_retries=max_answer_retries,
            lenient_code_blocks=lenient_code_blocks,
            self_check=self_check,
        )
        #: Send the cells' figures to the model as image parts (for multimodal models; text
        #: models see only the "[N image(s) produced]" placeholder of the observation).
        self.images_to_llm = images_to_llm
        #: Add hints to a failed cell's observation (the frame's real columns and dtypes on a
        #: KeyError/AttributeError, numbers stored as text, a new hint for a repeated error).
        self.recovery_hints = recovery_hints
        if executor is not None and code_execute_fn is not None:
            raise UserError("Pass either executor= or code_execute_fn=, not both")
        check_cell_tools(
            self.tools, hint="CodeActAgent tools must be plain functions of plain data."
        )
        if self.mcp_servers and any(t.name == SEARCH_TOOLS for t in self.tools):
            raise UserError(f"With mcp_servers, {SEARCH_TOOLS!r} is the sandbox's helper")
        template = code_act_system_prompt or CODEACT_INSTRUCTIONS
        if "{tools}" not in template:
            raise UserError("code_act_system_prompt must contain the placeholder {tools}")
        self.code_act_system_prompt = template
        self.cell_timeout = cell_timeout
        self.observation_max_chars = observation_max_chars
        self._executor_spec: ExecutorSpec | None = executor
        self._code_execute_fn = code_execute_fn
        self._execute_tool = _ExecuteTool(self)
        #: The sandbox's ``handoff`` per conversation (a workflow's agent only).
        self._handoffs: weakref.WeakKeyDictionary[Context, SandboxHandoff] = (
            weakref.WeakKeyDictionary()
        )

    # -- sessions --------------------------------------------------------------------------------
    def _make_executor(self) -> CodeExecutor:
        spec = self._executor_spec
        if self._code_execute_fn is not None:
            return FunctionExecutor(self._code_execute_fn)
        if spec is None:
            return get_executor("restricted")
        if isinstance(spec, str):
            return get_executor(spec)
        if isinstance(spec, CodeExecutor):
            return spec
        made = spec()
        if not isinstance(made, CodeExecutor):
            raise UserError(f"executor factory returned {type(made).__name__}, not a CodeExecutor")
        return made

    def executor_for(self, ctx: Context) -> CodeExecutor:
        """This agent's executor for the conversation ``ctx`` (created on first use). One made
        for the context is closed with it; an executor instance given to the agent is shared
        by every context and only borrowed (its owner closes it)."""
        key = f"executor:{self.name}"
        held = ctx.resource(key)
        if isinstance(held, CodeExecutor):
            return held
        if held is not None:
            raise UserError(f"context resource {key!r} is a {type(held).__name__}, not an executor")
        ex = self._make_executor()
        ctx.hold(key, ex, owned=not isinstance(self._executor_spec, CodeExecutor))
        return ex

    def session(self, ctx: Context) -> CodeExecutor:
        """Deprecated name of ``executor_for`` ("session" also names server threads and the
        sandbox's interpreter; this returns the executor)."""
        warnings.warn(
            "CodeActAgent.session(ctx) is deprecated; use CodeActAgent.executor_for(ctx)",
            DeprecationWarning,
            stacklevel=2,
        )
        return self.executor_for(ctx)

    async def on_activate(self, ctx: Context, tools: list[BaseTool]) -> None:
        """Bind the tools (plus the workflow's ``handoff``). The sandbox itself starts with the
        first code block, so a conversation that runs no code costs no sandbox."""
        ex = self.executor_for(ctx)
        sandbox_tools = [t for t in tools if t.name != EXECUTE]
        fresh = {t.sandbox_spec()[0] for t in self.context_tools(ctx)}
        if fresh:  # a shared executor calls the MCP servers of the latest conversation
            ex.tools = [t for t in ex.tools if t.sandbox_spec()[0] not in fresh]
        handoff = next((t for t in sandbox_tools if isinstance(t, HandoffTool)), None)
        if handoff is not None:
            sandbox_tools.remove(handoff)
            self._handoffs[ctx] = bound = SandboxHandoff(handoff)
            sandbox_tools.append(bound.as_tool())
        ex.add_tools(sandbox_tools)

    def take_handoff(self, ctx: Context) -> str | None:
        """The agent that code of ``ctx``'s last cell handed the conversation to, if any."""
        bound = self._handoffs.get(ctx)
        return bound.take() if bound is not None else None

    async def reset(self, ctx: Context) -> None:
        """Forget the variables of ``ctx``'s session (files stay)."""
        await self.executor_for(ctx).reset()

    # -- prompt and parsing ----------------------------------------------------------------------
    def system_message(self, tools: list[BaseTool]) -> ChatMessage:
        """CodeAct instructions, the tools as stubs, then the user's ``system_prompt``."""
        mcp = [t for t in tools if isinstance(t, MCPTool)]
        hidden = {EXECUTE, SEARCH_TOOLS} if mcp else {EXECUTE}
        shown = [t for t in tools if t.name not in hidden and not isinstance(t, MCPTool)]
        section = TOOLS_SECTION.format(stubs=render_tool_stubs(shown)) if shown else ""
        if mcp:
            section += MCP_SECTION.format(
                servers=MCPTool.servers_section(mcp),
                module=mcp[0].server.module,
                tool=mcp[0].py_name,
            )
        text = self.code_act_system_prompt.format(tools=section)
        if self.system_prompt:
            text = f"{text}\n{self.system_prompt}"
        return ChatMessage.system(text)

    def offered_tools(self, tools: list[BaseTool]) -> list[BaseTool]:
        """Only ``execute`` is called by the loop; the others are reached from code."""
        return [self._execute_tool]

    def tools_for_run(self) -> list[BaseTool]:
        return [*self.tools, self._execute_tool]

    def context_tools(self, ctx: Context) -> list[BaseTool]:
        """The MCP servers' tools for ``ctx`` plus ``search_tools``, their signatures on demand."""
        tools = super().context_tools(ctx)
        mcp = [t for t in tools if isinstance(t, MCPTool)]
        return [*tools, MCPTool.search_tool(mcp)] if mcp else tools

    async def take_step(
        self, step: StepContext, llm_input: list[ChatMessage], tools: list[BaseTool]
    ) -> AgentOutput:
        """Stream a reply; its ``<execute>`` blocks become ``execute`` calls."""
        run = step.run
        mine = run.state_of(CodeActRunState)
        last = is_last_step(run) and bool(mine.cells)
        if last:
            llm_input = [*llm_input, ChatMessage.user(last_step_note(run))]
        again, mine.resample_next = mine.resample_next, False
        guard = looping if self.recovery_hints and mine.resamples < MAX_RESAMPLES else None
        with sampling(temperature=RESAMPLE_TEMPERATURE) if again else contextlib.nullcontext():
            text = await self.stream_text(step, llm_input, stop=guard)
        cut = loop_start(text) if guard is not None and not last else None
        if cut is not None:  # (kept up to its first lap; asked again, sampled)
            mine.resamples += 1
            mine.resample_next = True
            reply = ChatMessage.assistant(text[:cut])
            return AgentOutput(response=reply, retry_messages=[reply, ChatMessage.user(LOOP_NOTE)])
        blocks, problem = parse_blocks(text)
        reply = ChatMessage.assistant(text)
        if problem is not None and not last:
            return AgentOutput(response=reply, retry_messages=[reply, ChatMessage.user(problem)])
        if not blocks:
            blocks = self.answers.fenced_code(run, text)
        if blocks:
            at_limit = answer_at_limit(run) if last else stuck_answer(run, blocks)
            if at_limit is not None:
                return at_limit
            repeat = repeated_failure(mine, blocks) if self.recovery_hints and not last else None
            if repeat is not None:  # (not run: asked again, sampled, for a different cell)
                mine.resamples += 1
                mine.resample_next = True
                again_note = ChatMessage.user(repeat_note(repeat))
                return AgentOutput(response=reply, retry_messages=[reply, again_note])
        if not blocks:
            failure, mine.last_failure = mine.last_failure, None
            if failure is not None and not last:
                note = (
                    "Your last code block failed:\n"
                    f"{failure}\n"
                    "Fix the error and run the corrected code, or explain why it cannot be fixed."
                )
                return AgentOutput(response=reply, retry_messages=[reply, ChatMessage.user(note)])
            answer = _SOLUTION.sub("", text).strip()
            return await self.answers.final(step, reply, answer, self.llm)
        calls = [
            ToolCallRequest(id=f"{step.message_id}-exec{k}", name=EXECUTE, arguments={"code": code})
            for k, code in enumerate(blocks)
        ]
        return AgentOutput(response=reply, tool_calls=calls)

    def render_messages(self, messages: list[ChatMessage]) -> list[ChatMessage]:
        """Each round of blocks as the reply, then one user message with every block's result
        in order (``Execution result of block i:``)."""
        return render_code_rounds(messages, images=self.images_to_llm)

    def record_tool_round(
        self, run: RunState, output: AgentOutput, results: list[ToolCallResult]
    ) -> None:
        """The typed round (the reply's ``execute`` calls and their results); remembers the
        first failed block for one nudge if the model then answers without fixing it."""
        super().record_tool_round(run, output, results)
        record_cells(run, output, results)
        failed = next((r for r in results if r.tool_output.is_error), None)
        failure = failed.tool_output.content[-1500:] if failed is not None else None
        run.state_of(CodeActRunState).last_failure = failure

    def answer_from_round(self, run: RunState) -> AgentOutput | None:
        """The answer from the rule's code the agent ran on the last step (``limit_cell``)."""
        return answer_from_fix(run)

    def check_final(self, step: StepContext, output: AgentOutput) -> AgentOutput:
        """``final_answer(value)`` from code goes through the answer validators too."""
        return self.answers.check_direct(step, output)

    def direct_output(self, run: RunState, result: ToolCallResult) -> AgentOutput:
        """``final_answer(value)`` ended the run: the value is returned as data."""
        execution = result.execution or {}
        value = execution.get("final_answer")
        if isinstance(value, str):
            text = value
        else:
            text = json.dumps(value, ensure_ascii=False, default=repr)
        return AgentOutput(
            response=ChatMessage.assistant(text),
            value=value,
            structured_response=value if isinstance(value, dict) else None,
        )


class _ExecuteTool(BaseTool):
    """The ``execute`` pseudo-tool: runs one block in the context's session."""

    def __init__(self, agent: CodeActAgent) -> None:
        self.agent = agent
        self.metadata = ToolMetadata(
            name=EXECUTE,
            description="Run Python code in the persistent session.",
            parameters={
                "type": "object",
                "properties": {"code": {"type": "string"}},
                "required": ["code"],
            },
        )

    async def acall(self, arguments: dict[str, Any], *, ctx: Any = None) -> ToolOutput:
        scope = current_call()
        code = str(arguments.get("code", ""))
        on_output: OutputCallback | None = None
        if scope is not None:
            handler, tool_id = scope.handler, scope.tool_id

            def on_output(stream: Literal["stdout", "stderr"], text: str) -> None:
                handler.emit(CodeOutputStream(tool_id=tool_id, stream=stream, text=text))

        assert isinstance(ctx, Context)
        taken = taken_over_note(scope.step.run if scope is not None else None, code)
        session = self.agent.executor_for(ctx)
        await session.start()  # lazily, on the first block; a failure ends the run (ExecutorError)
        result = await session.execute(code, timeout=self.agent.cell_timeout, on_output=on_output)
        failed = not result.ok
        observation = result.to_observation(self.agent.observation_max_chars)
        if self.agent.recovery_hints:
            probe = None if isinstance(session, FunctionExecutor) else session
            run = scope.step.run if scope is not None else None
            result, observation, ran = await recover_cell(
                probe,
                run,
                result,
                code,
                self.agent.cell_timeout,
                on_output,
                self.agent.observation_max_chars,
                rules=any(getattr(v, "checks_rules", False) for v in self.agent.answers.validators),
            )
            if ran != code:  # the call records the code that ran (events, memory, notebook)
                arguments["code"] = ran
                if run is not None:  # (a re-run of what the model wrote is still a repeat)
                    run.state_of(CodeActRunState).written.setdefault(ran, []).append(code)
            failed = not result.ok
        if taken:  # (the agent ran a note's code for a model that answered in words)
            observation = f"{taken}\n{observation}"
        return ToolOutput(
            content=observation,
            tool_name=EXECUTE,
            is_error=failed,
            raw_output=result.model_dump(),
            return_direct=result.is_final_answer and not failed,
            execution=result.model_dump(),
            handoff_to=self.agent.take_handoff(ctx),
            skip_later_calls=_NOT_RUN if failed or result.is_final_answer else None,
        )
