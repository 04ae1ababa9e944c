#!/usr/bin/env python3
"""Two builds of switchboard-hook, measured in alternating rounds on one machine.

    bench/hook_ab.py OLD_HOOK NEW_HOOK [--rounds N] [--app APP]

Each round runs each hook once (the order alternating between rounds) with a
Stop event on stdin, as an agent's hook does: against a running engine (the
app's daemon on a fresh data folder, `--app`, default target/dist/switchboard),
whose answer each hook reads, and with no engine (the event spooled). It prints
each build's median and interquartile range per case, and the new median over
the old. The binaries' sizes are printed too.
"""
import argparse, os, statistics, subprocess, sys, tempfile, time, uuid

def quartiles(samples):
    q = statistics.quantiles(samples, n=4)
    return q[0], statistics.median(samples), q[2]

def run(hook, env, payload):
    started = time.perf_counter()
    subprocess.run([hook], input=payload, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=False)
    return (time.perf_counter() - started) * 1000

def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("old")
    parser.add_argument("new")
    parser.add_argument("--rounds", type=int, default=int(os.environ.get("ROUNDS", 300)))
    parser.add_argument("--app", default="target/dist/switchboard")
    args = parser.parse_args()
    payload = b'{"hook_event_name":"Stop","last_assistant_message":"done"}'
    data = tempfile.mkdtemp(prefix="hook-ab-")
    app = os.path.realpath(args.app)
    subprocess.Popen([app, "--data-dir", data, "--no-demo", "daemon"], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    for _ in range(200):
        if subprocess.run([app, "--data-dir", data, "daemon", "--status"], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL).returncode == 0:
            break
        time.sleep(0.1)
    else:
        sys.exit("the engine did not start")
    # The engine names its socket in the data folder (a link, or a file holding the path).
    note = os.path.join(data, "engine.socket")
    socket = os.readlink(note) if os.path.islink(note) else open(note).read().strip()
    base = {"PATH": os.environ.get("PATH", ""), "SWITCHBOARD_SESSION_ID": str(uuid.uuid4())}
    cases = {
        "engine answers": dict(base, SWITCHBOARD_SOCKET=socket, SWITCHBOARD_SPOOL=os.path.join(data, "unused.jsonl")),
        "spooled": dict(base, SWITCHBOARD_SOCKET=os.path.join(data, "nothing.sock"), SWITCHBOARD_SPOOL=os.path.join(data, "spool.jsonl")),
    }
    try:
        for name, env in cases.items():
            times = {args.old: [], args.new: []}
            for round in range(args.rounds):
                order = (args.old, args.new) if round % 2 == 0 else (args.new, args.old)
                for hook in order:
                    times[hook].append(run(hook, env, payload))
            (o1, om, o3), (n1, nm, n3) = quartiles(times[args.old]), quartiles(times[args.new])
            print(f"{name}: old {om:.2f} ms (IQR {o1:.2f}-{o3:.2f}), new {nm:.2f} ms (IQR {n1:.2f}-{n3:.2f}), new/old {nm / om:.2f}")
        print(f"size: old {os.path.getsize(args.old)} bytes, new {os.path.getsize(args.new)} bytes")
    finally:
        subprocess.run([app, "--data-dir", data, "daemon", "--stop"], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)

if __name__ == "__main__":
    main()
