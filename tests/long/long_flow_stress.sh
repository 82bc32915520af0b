#!/usr/bin/env bash
# The flow stress of tests/integration/conn/test_flow_stress.sh at size
# (make test-long): 10^5 iterations across 200 users, the JIT on.
FLOW_STRESS_ITERATIONS=100000 FLOW_STRESS_USERS=200 \
    exec bash "$(dirname "$0")/../integration/conn/test_flow_stress.sh"
