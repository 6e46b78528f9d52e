#!/bin/sh
# thirty identical heartbeat lines for the log-parser fixture
yes 'heartbeat ok: queue=orders depth=0 lag_ms=0' | head -n 30
