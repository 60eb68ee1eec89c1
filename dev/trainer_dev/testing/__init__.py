"""The fakes and test helpers the tests and the benchmarks share (tests/README.md says which to use when).

Stand-ins for the ports, in memory and without I/O:
- `scripted_model`: ScriptedModel, an AgentModel that answers from a script (the whole conversation);
- `memory_store`: InMemorySessionStore, the SessionStore port with the DynamoDB adapter's semantics;
- `usage_ledger`: MemoryUsageLedger, the UsageLedger port;
- `agent_harness`: a ChatRunner wired to the above with fake sources, selector and publisher;
- `trainees`: distinct users as the real sources render them, for requests that differ per user;
- `echo_agents`: tiny registry agents for the agent factory's tests.

Loopback servers and processes, for the fault, crash and end-to-end tests and the benchmarks:
- `faulty_model`: a model server that answers the chat agent's calls with a chosen fault;
- `tcp_proxy`: a TCP proxy that can refuse, blackhole or drop the link to a real server;
- `local_stack`: starts and stops the local stack (`trainer local`) as a child process;
- `crash_turn_child`: a turn run in a child process, to be killed mid-turn.

World builders: `account_world` (a user with rows in every table, through the real services) and
`lambda_environment` (the variables template.yaml gives a deployed function).

Never imported by production code (tests/unit/project/test_layers.py), and never imports the tests."""
