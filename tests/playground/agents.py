"""Scripted agents for the playground tests (`codeact serve --agent tests.playground.agents:...`).

The model is a ``FunctionLLM`` whose reply depends on a keyword of the user's latest message,
so one server answers every scenario; the cells really run in the restricted executor's process
mode (under bubblewrap when available), with pandas and matplotlib opted in.
"""

from __future__ import annotations

from typing import Any

from codeact import CodeActAgent, FunctionAgent
from codeact.agents.workflow import AgentWorkflow
from codeact.executors.restricted import RestrictedExecutor
from codeact.llms import FunctionLLM, Reply, tool_call

CELLS = {
    "plot": (
        "Let me draw it.\n<execute>\nimport matplotlib.pyplot as plt\nprint('drawing squares')\n"
        "plt.plot([1, 2, 3, 4], [1, 4, 9, 16], marker='o')\nplt.title('Squares')\nplt.show()\n"
        "</execute>",
        "The chart shows the squares of 1 to 4.",
    ),
    "error": (
        "Trying it.\n<execute>\ndef ratio(a, b):\n    return a / b\n\nratio(1, 0)\n</execute>",
        "Dividing by zero raised ZeroDivisionError.",
    ),
    "table": (
        "<execute>\nimport pandas as pd\npd.DataFrame({'city': ['Paris', 'Lyon', 'Nice'], "
        "'units': [33, 12, 7]})\n</execute>",
        "Here is the table.",
    ),
    "slow": (
        "<execute>\nimport time\nfor i in range(120):\n    print('tick', i)\n"
        "    time.sleep(0.25)\n</execute>",
        "The slow cell finished.",
    ),
    "csv": (
        "<execute>\nimport pandas as pd\ndf = pd.read_csv('sales.csv')\n"
        "totals = df.groupby('city')['units'].sum().sort_values(ascending=False)\n"
        "totals.to_csv('totals.csv')\nprint(totals.to_string())\n</execute>",
        "I wrote the totals per city to totals.csv.",
    ),
}


#: User-role messages the CodeAct agent writes itself (cell results, a failure reminder).
_AGENT_NOTES = ("Execution result", "Your last code block failed")


def _reply(messages: list[Any], tools: list[Any]) -> Reply:
    human = [
        i
        for i, m in enumerate(messages)
        if m.role == "user" and not m.text.startswith(_AGENT_NOTES)
    ]
    last = human[-1] if human else 0
    asked = messages[last].text.lower() if human else ""
    # after the cell's result (or the agent's note about its failure): the closing answer
    in_cell_round = any(m.role == "assistant" for m in messages[last:])
    if "draft" in asked and not in_cell_round:  # code written slowly: the page shows it live
        lines = ["<execute>\n", "total = 0\n"] + [f"total += {i}\n" for i in range(12)]
        return Reply(chunks=[*lines, "print(total)\n", "</execute>"], chunk_delay=0.4)
    if "draft" in asked:
        return Reply(text="The total is 66.")
    for keyword, (first, second) in CELLS.items():
        if keyword in asked:
            return Reply(text=second if in_cell_round else first)
    return Reply(chunks=["Hello ", "from ", "the ", "scripted ", "agent."], chunk_delay=0.05)


def codeact() -> CodeActAgent:
    """A CodeAct agent whose cells run in a process-isolated restricted executor."""
    return CodeActAgent(
        llm=FunctionLLM(_reply, function_calling=False),
        executor=lambda: RestrictedExecutor(
            isolation="process", allowed_modules=["pandas", "numpy", "matplotlib"], timeout=60
        ),
    )


def _triage(messages: list[Any], tools: list[Any]) -> Reply:
    if messages[-1].role == "tool":
        return Reply(text="Handing over.")
    return Reply(tool_calls=[tool_call("handoff", to_agent="Analyst", reason="numbers")])


def _analyst(messages: list[Any], tools: list[Any]) -> Reply:
    return Reply(text="Analyst here: the numbers look fine.")


def handoff() -> AgentWorkflow:
    """Two agents: ``Triage`` hands the question to ``Analyst``."""
    triage = FunctionAgent(
        name="Triage",
        description="Routes questions",
        llm=FunctionLLM(_triage),
        can_handoff_to=["Analyst"],
    )
    analyst = FunctionAgent(
        name="Analyst", description="Answers about numbers", llm=FunctionLLM(_analyst)
    )
    return AgentWorkflow([triage, analyst], root_agent="Triage")
