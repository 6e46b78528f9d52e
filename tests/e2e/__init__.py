"""End-to-end tests: what a user runs (the CLI on the real model, the demo, the wheel, the integrations, the docs)."""
