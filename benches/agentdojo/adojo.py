"""AgentDojo's suites without a model: its task suites, tools and
environments, imported without the package of agent pipelines (whose
`__init__` imports every LLM client). The two modules of that package the
task suites need (the base pipeline element and the ground-truth
pipeline) import a Google client for one string constant; that constant
is given here instead."""

import importlib.util
import os
import sys
import types


def _without_llm_clients() -> None:
    spec = importlib.util.find_spec("agentdojo")
    if spec is None or spec.origin is None:
        raise SystemExit("agentdojo is not installed (see .ci/agentdojo.sh)")
    root = os.path.dirname(spec.origin)
    for name, path in [
        ("agentdojo.agent_pipeline", os.path.join(root, "agent_pipeline")),
        ("agentdojo.agent_pipeline.llms", os.path.join(root, "agent_pipeline", "llms")),
    ]:
        if name not in sys.modules:
            m = types.ModuleType(name)
            m.__path__ = [path]
            sys.modules[name] = m
    google = "agentdojo.agent_pipeline.llms.google_llm"
    if google not in sys.modules:
        m = types.ModuleType(google)
        # agentdojo/agent_pipeline/llms/google_llm.py, version 0.1.35.
        m.EMPTY_FUNCTION_NAME = "<empty-function-name>"  # type: ignore[attr-defined]
        sys.modules[google] = m


_without_llm_clients()

from agentdojo.functions_runtime import FunctionCall, FunctionsRuntime  # noqa: E402
from agentdojo.task_suite.load_suites import get_suite  # noqa: E402

__all__ = ["FunctionCall", "FunctionsRuntime", "get_suite"]
