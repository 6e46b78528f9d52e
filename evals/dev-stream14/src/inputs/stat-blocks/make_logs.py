import os

os.makedirs("logs", exist_ok=True)
sizes = {"gateway.log": 18342, "worker-1.log": 5120, "worker-2.log": 4981,
         "worker-3.log": 0, "scheduler.log": 77210, "audit.log": 1024}
for name, size in sizes.items():
    with open(os.path.join("logs", name), "wb") as f:
        f.write(b"x" * size)
os.chmod("logs/audit.log", 0o600)
