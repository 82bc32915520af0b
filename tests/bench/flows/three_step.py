# Benchmark user for Locust (tests/bench/flows.sh): the three-step flow of
# three_step.lua (log in with a POST, look at 3 items, check out with a
# POST), FastHttpUser, no think time.
from locust import FastHttpUser, task, constant


class Shopper(FastHttpUser):
    wait_time = constant(0)

    @task
    def flow(self):
        self.client.post("/login", data={"user": "user1", "password": "pw"})
        for i in range(1, 4):
            self.client.get("/items/%d" % i, name="/items/N")
        self.client.post("/checkout", json={"items": 3})
