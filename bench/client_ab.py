#!/usr/bin/env python3
"""Two builds of the engine, reached through their sockets, in alternating rounds.

    bench/client_ab.py OLD_APP NEW_APP [--rounds N] [--commands N] [--megabytes N]

Each build's daemon (`APP --data-dir D --no-demo daemon`) runs on a fresh data
folder, and a client speaking the one client protocol (the framed socket: a
hello, then requests with ids) measures, in each round, each build in turn (the
order alternating between rounds):

- command latency: `--commands` (500) `list_profiles` and `get_task` (a task
  that is not there: a refusal) round trips on one open connection;
- terminal throughput: an agent that, once told to go, prints `--megabytes`
  (32) of base64 text; the client attached to its terminal counts the bytes
  that reach it, from the go to the line it prints last.

It prints each build's median and interquartile range per measure over the
rounds, and the new median over the old.
"""
import argparse, json, os, socket, statistics, struct, subprocess, sys, tempfile, time

MESSAGE, OUTPUT = 0, 1
# What the printing agent says last: its whole output has reached the client.
END = "printed-all-of-it"


class Engine:
    """One build's daemon on its own data folder, and a framed connection to it."""

    def __init__(self, app, name):
        self.app, self.name = os.path.realpath(app), name
        self.data = tempfile.mkdtemp(prefix=f"client-ab-{name}-")
        subprocess.Popen([self.app, "--data-dir", self.data, "--no-demo", "daemon"], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        for _ in range(300):
            if self.run("daemon", "--status") == 0:
                break
            time.sleep(0.1)
        else:
            sys.exit(f"the {name} engine did not start")
        note = os.path.join(self.data, "engine.socket")
        path = os.readlink(note) if os.path.islink(note) else open(note).read().strip()
        self.sock = socket.socket(socket.AF_UNIX)
        self.sock.connect(path)
        self.buffer = b""
        self.next_id = 0
        hello = {"protocol": 1, "app_version": "bench", "build_id": "bench", "client_kind": "test", "client_id": f"bench-{name}"}
        self.send(hello)
        answer = self.frame()
        if json.loads(answer[1]).get("type") != "welcome":
            sys.exit(f"the {name} engine refused the hello: {answer[1]!r}")

    def run(self, *args):
        return subprocess.run([self.app, "--data-dir", self.data, *args], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL).returncode

    def send(self, value):
        body = json.dumps(value).encode()
        self.sock.sendall(struct.pack(">IB", len(body) + 1, MESSAGE) + body)

    def frame(self):
        while True:
            if len(self.buffer) >= 5:
                length, kind = struct.unpack(">IB", self.buffer[:5])
                if len(self.buffer) >= 4 + length:
                    body = self.buffer[5 : 4 + length]
                    self.buffer = self.buffer[4 + length :]
                    return kind, body
            chunk = self.sock.recv(1 << 20)
            if not chunk:
                sys.exit(f"the {self.name} engine closed the connection")
            self.buffer += chunk

    def request(self, request, on_output=None):
        """Sends a request and reads frames up to its answer (output frames go to `on_output`)."""
        self.next_id += 1
        self.send({"type": "request", "id": self.next_id, "request": request})
        while True:
            kind, body = self.frame()
            if kind == OUTPUT:
                if on_output:
                    on_output(body)
                continue
            frame = json.loads(body)
            if frame.get("type") == "reply" and frame.get("id") == self.next_id:
                return frame["answer"]

    def command(self, command):
        return self.request({"type": "command", "command": command})

    def stop(self):
        self.sock.close()
        self.run("daemon", "--stop")


def command_latency(engine, count):
    """Median milliseconds of a `list_profiles` and of a refused `get_task`, `count` of each."""
    times = []
    for n in range(count):
        started = time.perf_counter()
        engine.command({"type": "list_profiles"} if n % 2 == 0 else {"type": "get_task", "task_id": "00000000-0000-0000-0000-000000000000"})
        times.append((time.perf_counter() - started) * 1000)
    return statistics.median(times)


def throughput(engine, megabytes, round):
    """MB/s of an agent's output through the socket, from its go to its stream's end."""
    spec = {
        "name": f"printer-{round}",
        "command": "sh",
        "args": ["-c", f"read go; head -c {megabytes * 1024 * 1024} /dev/zero | base64; echo {END}"],
        "cwd": engine.data,
        "kind": "generic",
    }
    profile = engine.command({"type": "create_profile", "spec": spec})["reply"]["value"]
    session = engine.command({"type": "start_session", "profile_id": profile["id"], "size": {"rows": 40, "cols": 200}})["reply"]["value"]
    received, tail = [0], [b""]

    def count(body):
        received[0] += len(body) - 4
        tail[0] = (tail[0] + body[4:])[-64:]

    engine.request({"type": "attach", "session_id": session["id"], "stream": round + 1}, count)
    started = time.perf_counter()
    engine.command({"type": "write_input", "session_id": session["id"], "data": "go\r"})
    while END.encode() not in tail[0]:
        kind, body = engine.frame()
        if kind == OUTPUT:
            count(body)
    seconds = time.perf_counter() - started
    return received[0] / (1024 * 1024) / seconds


def quartiles(samples):
    if len(samples) < 2:
        return samples[0], samples[0], samples[0]
    q = statistics.quantiles(samples, n=4)
    return q[0], statistics.median(samples), q[2]


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("old")
    parser.add_argument("new")
    parser.add_argument("--rounds", type=int, default=int(os.environ.get("ROUNDS", 9)))
    parser.add_argument("--commands", type=int, default=int(os.environ.get("COMMANDS", 500)))
    parser.add_argument("--megabytes", type=int, default=int(os.environ.get("MEGABYTES", 32)))
    args = parser.parse_args()
    engines = {"old": Engine(args.old, "old"), "new": Engine(args.new, "new")}
    results = {name: {"command ms": [], "terminal MB/s": []} for name in engines}
    try:
        for round in range(args.rounds):
            order = ("old", "new") if round % 2 == 0 else ("new", "old")
            for name in order:
                results[name]["command ms"].append(command_latency(engines[name], args.commands))
                results[name]["terminal MB/s"].append(throughput(engines[name], args.megabytes, round))
        for measure in ("command ms", "terminal MB/s"):
            (o1, om, o3), (n1, nm, n3) = quartiles(results["old"][measure]), quartiles(results["new"][measure])
            print(f"{measure}: old {om:.3f} (IQR {o1:.3f}-{o3:.3f}), new {nm:.3f} (IQR {n1:.3f}-{n3:.3f}), new/old {nm / om:.2f}")
    finally:
        for engine in engines.values():
            engine.stop()


if __name__ == "__main__":
    main()
