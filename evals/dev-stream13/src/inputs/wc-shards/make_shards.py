# Writes CSV shards with different numbers of rows under ./shards.
import os
os.makedirs("shards", exist_ok=True)
sizes = [1000, 1000, 1000, 1000, 1000, 1000, 1000, 1000, 1000, 1000, 1000, 1000, 1000, 1000, 1000, 1000, 1000, 412]
for i, rows in enumerate(sizes):
    with open(f"shards/orders_{i:03d}.csv", "w") as f:
        f.write("order_id,customer_id,amount\n")
        for r in range(rows):
            oid = i * 1000 + r
            f.write(f"{oid},{(oid * 7919) % 5003},{(oid * 37) % 1000 / 10:.2f}\n")
