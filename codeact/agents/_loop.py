"""The shared agent loop, used unchanged by every agent style and by AgentWorkflow.

init (memory, state) → setup (system prompt, state rendered into the LLM input only) → step
(the agent's ``take_step``) → parse → finish, or run the step's tool calls concurrently (bounded),
collect their results in call order, feed them back, and go round again.
"""

from __future__ import annotations

import json
import warnings
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass

import anyio
import anyio.lowlevel

from codeact._messages import ChatMessage, ToolCallRequest
from codeact.agents._config import RunConfig
from codeact.agents._handler import RunHandler
from codeact.agents._notefocus import focus_messages
from codeact.agents._state import ANSWER_FROM_CALLS, AgentStyle, RunState, StepContext
from codeact.context import Context
from codeact.errors import CodeActError, LLMError, MaxIterationsError, UserError
from codeact.events import AgentInput, AgentOutput, AgentSetup, ToolCall, ToolCallResult
from codeact.memory import ChatMemory
from codeact.tools import BaseTool, ToolOutput

EARLY_STOP_PROMPT = (
    "You have reached the maximum number of iterations ({limit}). Do not call any more tools. "
    "Give the most helpful final answer you can from the information gathered so far."
)


@dataclass
class ToolCallScope:
    """What a tool running inside the loop can learn about its call (via ``current_call()``)."""

    handler: RunHandler
    tool_id: str
    step: StepContext


_CURRENT_CALL: ContextVar[ToolCallScope | None] = ContextVar("codeact_current_call", default=None)


def current_call() -> ToolCallScope | None:
    """The tool call being run in this task, if any (used by built-in tools to emit events)."""
    return _CURRENT_CALL.get()


def start_run(
    config: RunConfig,
    user_msg: str | ChatMessage | None,
    *,
    chat_history: Sequence[ChatMessage] | None = None,
    memory: ChatMemory | None = None,
    ctx: Context | None = None,
) -> RunHandler:
    """Create the context if needed and return a handler that drives the loop."""
    continuing = (
        ctx is not None and bool(ctx.memory.get_all()) and ctx.memory.get_all()[-1].role == "tool"
    )
    if user_msg is None and not chat_history and not continuing:
        raise UserError(
            "Must provide either user_msg or chat_history (or a ctx whose memory ends with "
            "tool results, to continue a turn)"
        )
    owns_ctx = ctx is None
    if ctx is None:
        ctx = Context(memory=memory)
    elif memory is not None:
        ctx.memory = memory
    ctx.init_state(config.initial_state)
    if ctx.current_agent_name not in config.agents:
        ctx.current_agent_name = config.root
    loop = _Loop(config, ctx, user_msg, chat_history, owns_ctx=owns_ctx)
    return RunHandler(loop.run, ctx, timeout=config.timeout)


class _Loop:
    def __init__(
        self,
        config: RunConfig,
        ctx: Context,
        user_msg: str | ChatMessage | None,
        chat_history: Sequence[ChatMessage] | None,
        *,
        owns_ctx: bool = False,
    ) -> None:
        self.owns_ctx = owns_ctx
        self.config = config
        self.ctx = ctx
        self.user_msg = user_msg
        self.chat_history = chat_history

    # -- the loop --------------------------------------------------------------------------------
    async def run(self, handler: RunHandler) -> AgentOutput:
        ctx = self.ctx
        if self.chat_history is not None:
            ctx.memory.set(self.chat_history)
        if self.user_msg is not None:
            msg = self.user_msg
            ctx.memory.put(ChatMessage.user(msg) if isinstance(msg, str) else msg)
        last_user = next((m for m in reversed(ctx.memory.get_all()) if m.role == "user"), None)
        run = RunState(
            user_msg=last_user.text if last_user else "", max_iterations=self.config.max_iterations
        )
        agent = await self._activate(handler, ctx.current_agent_name or self.config.root)
        try:
            while True:
                step = StepContext(handler=handler, ctx=ctx, run=run, agent=agent)
                tools = self._tools(agent)
                output = await self._step(step, tools)
                if output.retry_messages:
                    if (end := await self._retry(step, output)) is not None:
                        return end
                    continue
                run.retry_messages = []
                if not output.tool_calls:
                    return await self._finish(step, output)
                if run.iterations >= self.config.max_iterations:
                    return await self._last_round(step, output, tools)
                done = await self._tool_round(step, output, tools)
                if isinstance(done, AgentOutput):
                    return done
                if done.final is not None:
                    if not done.final.retry_messages:
                        return await self._finish(step, done.final)
                    if (end := await self._retry(step, done.final)) is not None:
                        return end
                if done.handoff_to is not None:
                    self._flush(run)
                    agent = await self._activate(handler, done.handoff_to)
        finally:
            self._flush(run)
            if self.owns_ctx:  # nobody can continue this context: release its sandboxes
                with anyio.CancelScope(shield=True):
                    await ctx.aclose()

    async def _retry(self, step: StepContext, output: AgentOutput) -> AgentOutput | None:
        """Send ``output``'s retry messages with the next step, or end the run when the
        iteration limit is reached (the one place the limit ends a retry)."""
        step.run.retry_messages = list(output.retry_messages)
        if step.run.iterations >= self.config.max_iterations:
            return await self._early_stop(step, step.run)
        return None

    async def _tool_round(
        self, step: StepContext, output: AgentOutput, tools: list[BaseTool]
    ) -> AgentOutput | _Round:
        """Run one reply's tool calls: the run's end when some are the caller's to run, else
        what the round asks for next (a direct answer to check, a handoff)."""
        run, agent = step.run, step.agent
        by_name = {t.name: t for t in tools}
        for_caller = [
            c for c in output.tool_calls if (t := by_name.get(c.name)) and t.executed_by_caller
        ]
        here = [c for c in output.tool_calls if c not in for_caller]
        results = await self._call_tools(step, here, tools)
        run.tool_results.extend(results)
        agent.record_tool_round(run, output, results)
        if for_caller:
            return self._await_caller(step, output, for_caller)
        handoff = next(
            (r.tool_output.handoff_to for r in results if r.tool_output.handoff_to), None
        )
        direct = next(
            (r for r in results if r.return_direct and not r.tool_output.handoff_to), None
        )
        final = (
            None if direct is None else agent.check_final(step, agent.direct_output(run, direct))
        )
        return _Round(final=final, handoff_to=handoff)

    async def _activate(self, handler: RunHandler, name: str) -> AgentStyle:
        agent = self.config.agents[name]
        self.ctx.current_agent_name = name
        handler.agent_name = name
        await agent.prepare(self.ctx)
        tools = self._tools(agent)
        await agent.on_activate(self.ctx, tools)
        sysmsg = agent.system_message(tools)
        handler.emit(
            AgentSetup(
                system_prompt=sysmsg.text if sysmsg else None,
                tools=[t.name for t in agent.offered_tools(tools)],
            )
        )
        return agent

    def _tools(self, agent: AgentStyle) -> list[BaseTool]:
        tools = [*agent.tools_for_run(), *agent.context_tools(self.ctx)]
        tools += self.config.extra_tools.get(agent.name, [])
        names = {t.name for t in tools}
        return tools + [t for t in self.config.client_tools if t.name not in names]

    def _llm_input(
        self, agent: AgentStyle, run: RunState, tools: list[BaseTool]
    ) -> list[ChatMessage]:
        history = self.ctx.memory.get()
        if self.ctx.state:
            for i in range(len(history) - 1, -1, -1):
                if history[i].role == "user":
                    text = self.config.state_prompt.format(
                        state=json.dumps(self.ctx.state, default=str, ensure_ascii=False),
                        msg=history[i].text,
                    )
                    history[i] = history[i].with_text(text)
                    break
        sysmsg = agent.system_message(tools)
        head = [sysmsg] if sysmsg is not None else []
        head += [ChatMessage.system(text) for text in self.config.instructions]
        # (the files note's reading code only for the columns the question names)
        turns = agent.render_messages(focus_messages([*history, *run.scratchpad], run.user_msg))
        return [*head, *turns, *run.retry_messages]

    async def _step(self, step: StepContext, tools: list[BaseTool]) -> AgentOutput:
        agent, run = step.agent, step.run
        await anyio.lowlevel.checkpoint()  # a cancelled run stops before asking the LLM again
        llm_input = self._llm_input(agent, run, tools)
        step.handler.emit(AgentInput(input=llm_input))
        run.iterations += 1
        with _llm_errors(f"The LLM step of agent {agent.name!r} failed"):
            output = await agent.take_step(step, llm_input, agent.offered_tools(tools))
        if output.response.id is None:
            response = output.response.model_copy(update={"id": step.message_id})
            output = output.model_copy(update={"response": response})
        return step.handler.emit(output)

    # -- tools -----------------------------------------------------------------------------------
    async def _call_tools(
        self, step: StepContext, calls: list[ToolCallRequest], tools: list[BaseTool]
    ) -> list[ToolCallResult]:
        by_name = {t.name: t for t in tools}
        results: list[ToolCallResult | None] = [None] * len(calls)

        async def one(i: int, call: ToolCallRequest) -> None:
            results[i] = await self._call_one(step, call, by_name)

        if step.agent.tool_concurrency <= 1 or len(calls) == 1:
            skip: str | None = None
            for i, call in enumerate(calls):
                if skip is not None:
                    results[i] = self._skipped(step, call, skip)
                    continue
                await one(i, call)
                result = results[i]
                skip = result.tool_output.skip_later_calls if result is not None else None
        else:
            limiter = anyio.CapacityLimiter(step.agent.tool_concurrency)

            async def limited(i: int, call: ToolCallRequest) -> None:
                async with limiter:
                    await one(i, call)

            async with anyio.create_task_group() as tg:
                for i, call in enumerate(calls):
                    tg.start_soon(limited, i, call)
        return [r for r in results if r is not None]

    async def _call_one(
        self, step: StepContext, call: ToolCallRequest, by_name: dict[str, BaseTool]
    ) -> ToolCallResult:
        handler = step.handler
        handler.emit(ToolCall(tool_name=call.name, tool_kwargs=call.arguments, tool_id=call.id))
        tool = by_name.get(call.name)
        if call.parse_error is not None:
            output = _error(call.name, f"Could not call tool {call.name}: {call.parse_error}")
        elif tool is None:
            available = ", ".join(sorted(by_name)) or "(none)"
            output = _error(
                call.name,
                f"Tool {call.name} not found. Please select a tool that is available: {available}.",
            )
        else:
            token = _CURRENT_CALL.set(ToolCallScope(handler=handler, tool_id=call.id, step=step))
            try:
                output = await tool.acall(call.arguments, ctx=self.ctx)
            except CodeActError:
                raise
            except Exception as exc:  # a BaseTool that raised instead of returning an error
                output = _error(call.name, f"Error calling tool {call.name}: {exc}", exc)
            finally:
                _CURRENT_CALL.reset(token)
        direct = output.return_direct
        if direct is None:
            direct = bool(tool and tool.metadata.return_direct)
        result = ToolCallResult(
            tool_name=call.name,
            tool_kwargs=call.arguments,
            tool_id=call.id,
            tool_output=output,
            return_direct=direct and not output.is_error,
            execution=output.execution,
        )
        return handler.emit(result)

    def _skipped(self, step: StepContext, call: ToolCallRequest, text: str) -> ToolCallResult:
        """A call not run because an earlier one of its reply said so (``skip_later_calls``)."""
        step.handler.emit(
            ToolCall(tool_name=call.name, tool_kwargs=call.arguments, tool_id=call.id)
        )
        output = ToolOutput(content=text, tool_name=call.name, is_error=True)
        result = ToolCallResult(
            tool_name=call.name, tool_kwargs=call.arguments, tool_id=call.id, tool_output=output
        )
        return step.handler.emit(result)

    # -- ending ----------------------------------------------------------------------------------
    async def _finish(self, step: StepContext, output: AgentOutput) -> AgentOutput:
        run = step.run
        self.ctx.memory.put_messages(step.agent.final_messages(run, output))
        run.scratchpad.clear()
        # The result lists every tool call of the run (the step event keeps its own).
        output = output.model_copy(
            update={"tool_calls": [_request_of(r) for r in run.tool_results]}
        )
        return await self._structured(step, output)

    async def _last_round(
        self, step: StepContext, output: AgentOutput, tools: list[BaseTool]
    ) -> AgentOutput:
        """Tool calls asked for on the run's last step: run only when the agent itself asks
        for them to answer from (``AgentOutput.raw[ANSWER_FROM_CALLS]``, no LLM step more),
        then the agent's answer from them (``BaseAgent.answer_from_round``); else the early
        stop."""
        if (output.raw or {}).get(ANSWER_FROM_CALLS):
            done = await self._tool_round(step, output, tools)
            if isinstance(done, AgentOutput):
                return done
            if done.final is not None and not done.final.retry_messages:
                return await self._finish(step, done.final)
            answer = step.agent.answer_from_round(step.run)
            if answer is not None:
                return await self._finish(step, step.handler.emit(answer))
        return await self._early_stop(step, step.run)

    async def _early_stop(self, step: StepContext, run: RunState) -> AgentOutput:
        limit = self.config.max_iterations
        if self.config.early_stopping_method == "force":
            raise MaxIterationsError(limit)
        agent = step.agent
        run.retry_messages = []
        messages = self._llm_input(agent, run, [])
        messages.append(ChatMessage.system(EARLY_STOP_PROMPT.format(limit=limit)))
        with _llm_errors("The final (early-stopping) LLM call failed"):
            resp = await agent.llm.chat(messages)
        output = AgentOutput(response=ChatMessage.assistant(resp.message.text), raw=resp.raw)
        return await self._finish(step, step.handler.emit(output))

    def _await_caller(
        self, step: StepContext, output: AgentOutput, calls: list[ToolCallRequest]
    ) -> AgentOutput:
        """End the run after announcing tool calls the caller executes: memory keeps the
        request (and this round's server results); the caller sends the results next turn."""
        for call in calls:
            step.handler.emit(
                ToolCall(tool_name=call.name, tool_kwargs=call.arguments, tool_id=call.id)
            )
        self._flush(step.run)
        return output.model_copy(update={"tool_calls": list(calls)})

    def _flush(self, run: RunState) -> None:
        """Keep complete tool rounds of an interrupted run (or before a handoff) in memory."""
        if run.scratchpad:
            self.ctx.memory.put_messages(run.scratchpad)
            run.scratchpad.clear()

    async def _structured(self, step: StepContext, output: AgentOutput) -> AgentOutput:
        """``output`` with its ``structured_response`` (a copy), when the run asks for one."""
        cfg = self.config
        if cfg.output_cls is None and cfg.structured_output_fn is None:
            return output
        from codeact.agents._structured import extract_structured

        messages = step.agent.render_messages(self.ctx.memory.get())
        try:
            structured = await extract_structured(
                step.agent.llm, messages, cfg.output_cls, cfg.structured_output_fn
            )
        except Exception as exc:
            warnings.warn(
                f"Structured output extraction failed, structured_response is None: {exc}",
                RuntimeWarning,
                stacklevel=2,
            )
            structured = None
        return output.model_copy(update={"structured_response": structured})


@dataclass
class _Round:
    """What a tool round asks for next: a final answer (from a direct result), a handoff, or
    neither (another step)."""

    final: AgentOutput | None
    handoff_to: str | None


@contextmanager
def _llm_errors(what: str) -> Iterator[None]:
    """Re-raise an LLM call's failure as ``LLMError`` (our own errors pass unchanged)."""
    try:
        yield
    except CodeActError:
        raise
    except Exception as exc:
        raise LLMError(f"{what}: {exc}") from exc


def _error(name: str, text: str, exc: BaseException | None = None) -> ToolOutput:
    return ToolOutput(content=text, tool_name=name, is_error=True, exception=exc)


def _request_of(result: ToolCallResult) -> ToolCallRequest:
    return ToolCallRequest(id=result.tool_id, name=result.tool_name, arguments=result.tool_kwargs)
