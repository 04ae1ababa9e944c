#!/usr/bin/python3
"""How many desktop notifications a run of the real app shows, and how many at once.

Run by bench/notifications.sh inside its own X display (Xvfb) and session bus. This script owns
org.freedesktop.Notifications on that bus, as a desktop's notification daemon does, and keeps
every Notify and CloseNotification call the app makes; it starts the app (the binary given),
makes four demo agents over the engine socket, gives each five tasks, waits for all twenty to
end, then says:

    popups     notifications that appeared (a Notify that replaced one still on screen is not
               a new pop-up: it changed in place)
    replaced   Notify calls that replaced one on screen
    closed     CloseNotification calls (the app closing what was handled)
    max_shown  the most on screen at once
    urgency    Notify calls by urgency; timeouts by kind; with the app's icon (image-path hint
               or app_icon)

A notification leaves the screen when the app closes it or when its time runs out: the time
the app asked for, or, when it asked the server's default (-1), 10 s for low and normal
urgency and never for critical, as dunst does by default. Needs python3-gi (GLib's D-Bus).
"""

import argparse
import json
import os
import socket
import subprocess
import sys
import tempfile
import threading
import time

from gi.repository import Gio, GLib

NAME = "org.freedesktop.Notifications"
PATH = "/org/freedesktop/Notifications"
XML = f"""
<node>
  <interface name="{NAME}">
    <method name="GetCapabilities"><arg type="as" direction="out"/></method>
    <method name="Notify">
      <arg type="s" direction="in"/><arg type="u" direction="in"/><arg type="s" direction="in"/>
      <arg type="s" direction="in"/><arg type="s" direction="in"/><arg type="as" direction="in"/>
      <arg type="a{{sv}}" direction="in"/><arg type="i" direction="in"/>
      <arg type="u" direction="out"/>
    </method>
    <method name="CloseNotification"><arg type="u" direction="in"/></method>
    <method name="GetServerInformation">
      <arg type="s" direction="out"/><arg type="s" direction="out"/>
      <arg type="s" direction="out"/><arg type="s" direction="out"/>
    </method>
    <signal name="NotificationClosed"><arg type="u"/><arg type="u"/></signal>
    <signal name="ActionInvoked"><arg type="u"/><arg type="s"/></signal>
  </interface>
</node>
"""
# dunst's defaults: low and normal go after 10 s, critical stays.
DEFAULT_TIMEOUT_MS = {0: 10_000, 1: 10_000, 2: None}


class Server:
    def __init__(self, bus):
        self.bus = bus
        self.lock = threading.Lock()
        self.next_id = 1
        # id -> (expires at, monotonic seconds, or None)
        self.shown = {}
        self.calls = []
        self.popups = 0
        self.replaced = 0
        self.closed = 0
        self.max_shown = 0

    def expire(self):
        now = time.monotonic()
        with self.lock:
            gone = [i for i, until in self.shown.items() if until is not None and until <= now]
            for i in gone:
                del self.shown[i]
        for i in gone:
            self.bus.emit_signal(None, PATH, NAME, "NotificationClosed", GLib.Variant("(uu)", (i, 1)))
        return True

    def on_call(self, bus, sender, path, interface, method, params, invocation):
        if method == "GetCapabilities":
            invocation.return_value(GLib.Variant("(as)", (["body", "actions"],)))
        elif method == "GetServerInformation":
            invocation.return_value(GLib.Variant("(ssss)", ("bench", "switchboard", "1", "1.2")))
        elif method == "Notify":
            app, replaces, icon, summary, body, actions, hints, timeout = params.unpack()
            self.expire()
            urgency = int(hints.get("urgency", 1))
            with self.lock:
                if replaces and replaces in self.shown:
                    nid = replaces
                    self.replaced += 1
                else:
                    nid = replaces or self.next_id
                    if not replaces:
                        self.next_id += 1
                    self.popups += 1
                ms = DEFAULT_TIMEOUT_MS[urgency] if timeout < 0 else (None if timeout == 0 else timeout)
                self.shown[nid] = None if ms is None else time.monotonic() + ms / 1000
                self.max_shown = max(self.max_shown, len(self.shown))
                self.calls.append({
                    "at": time.monotonic(), "id": nid, "replaces": replaces, "title": summary,
                    "body": body, "urgency": urgency, "timeout": timeout,
                    "icon": bool(icon or hints.get("image-path") or hints.get("image_path")),
                })
            invocation.return_value(GLib.Variant("(u)", (nid,)))
        elif method == "CloseNotification":
            (nid,) = params.unpack()
            with self.lock:
                self.closed += 1
                self.shown.pop(nid, None)
            invocation.return_value(None)
            bus.emit_signal(None, PATH, NAME, "NotificationClosed", GLib.Variant("(uu)", (nid, 3)))


def command(sock_path, cmd):
    """One command on the engine socket; its answer."""
    with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as s:
        s.connect(sock_path)
        s.sendall((json.dumps({"type": "command", "command": cmd}) + "\n").encode())
        line = s.makefile().readline()
    answer = json.loads(line)
    if "error" in answer:
        raise RuntimeError(f"{cmd['type']}: {answer['error']}")
    return answer["ok"]


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--app", required=True)
    parser.add_argument("--demo-agent", required=True)
    parser.add_argument("--agents", type=int, default=4)
    parser.add_argument("--tasks", type=int, default=5)
    args = parser.parse_args()

    bus = Gio.bus_get_sync(Gio.BusType.SESSION, None)
    server = Server(bus)
    node = Gio.DBusNodeInfo.new_for_xml(XML)
    bus.register_object(PATH, node.interfaces[0], server.on_call, None, None)
    owned = threading.Event()
    Gio.bus_own_name_on_connection(bus, NAME, Gio.BusNameOwnerFlags.NONE, lambda *a: owned.set(), None)
    loop = GLib.MainLoop()
    GLib.timeout_add(100, server.expire)
    threading.Thread(target=loop.run, daemon=True).start()
    if not owned.wait(10):
        sys.exit("could not own the notification service's name")

    data = tempfile.mkdtemp(prefix="switchboard-bench-notify-")
    env = {k: v for k, v in os.environ.items() if k != "XDG_RUNTIME_DIR"}
    app = subprocess.Popen([args.app, "--data-dir", data, "--no-demo"], env=env,
                           stdout=subprocess.DEVNULL, stderr=open(os.path.join(data, "app.stderr"), "w"))
    try:
        run_dir = os.path.join(data, "run")
        deadline = time.monotonic() + 60
        sock = None
        while sock is None:
            if time.monotonic() > deadline or app.poll() is not None:
                sys.exit(f"the app did not open its socket (see {data}/app.stderr)")
            found = [f for f in os.listdir(run_dir) if f.endswith(".sock")] if os.path.isdir(run_dir) else []
            sock = os.path.join(run_dir, found[0]) if found else None
            time.sleep(0.1)
        time.sleep(2)  # the window opens
        names = [f"agent {n + 1}" for n in range(args.agents)]
        for n, name in enumerate(names):
            workspace = os.path.join(data, name.replace(" ", "-"))
            os.makedirs(workspace)
            # Agents of different paces (steps of 300 ms, 600 ms, ...): their tasks end apart,
            # sometimes close together, as a real run's do.
            speed = str(300 * (n + 1))
            command(sock, {"type": "create_profile", "spec": {
                "name": name, "command": args.demo_agent, "args": ["--speed", speed], "cwd": workspace,
                "kind": "generic", "ready_pattern": "demo> $", "ready_quiet_ms": 100,
            }})
        profiles = {p["name"]: p["id"] for p in command(sock, {"type": "list_profiles"})["value"]}
        started = time.monotonic()
        for t in range(args.tasks):
            for name in names:
                command(sock, {"type": "submit_task", "spec": {
                    "profile_id": profiles[name], "instruction": f"Task {t + 1} of {name}: tidy the docs",
                    "priority": "normal"}})
        total = args.agents * args.tasks
        while True:
            tasks = command(sock, {"type": "list_tasks", "profile_id": None})["value"]
            ended = [t for t in tasks if t["state"] not in ("queued", "running")]
            if len(ended) >= total:
                break
            if time.monotonic() - started > 300:
                sys.exit(f"only {len(ended)} of {total} tasks ended in 5 minutes")
            time.sleep(0.2)
        took = time.monotonic() - started
        # The last notifications arrive: until none came for 5 s (at most 60 s).
        settle = time.monotonic() + 60
        while time.monotonic() < settle:
            with server.lock:
                last = server.calls[-1]["at"] if server.calls else started
            if time.monotonic() - last > 5:
                break
            time.sleep(0.2)
    finally:
        app.terminate()
        try:
            app.wait(15)
        except subprocess.TimeoutExpired:
            app.kill()
    with server.lock:
        calls = list(server.calls)
        urgency = {name: sum(1 for c in calls if c["urgency"] == u) for u, name in ((0, "low"), (1, "normal"), (2, "critical"))}
        result = {
            "tasks": total, "agents": args.agents, "run_secs": round(took, 1),
            "notify_calls": len(calls), "popups": server.popups, "replaced": server.replaced,
            "closed": server.closed, "max_shown": server.max_shown, "urgency": urgency,
            "timeouts_ms": sorted({c["timeout"] for c in calls}),
            "with_icon": sum(1 for c in calls if c["icon"]),
            "titles": [c["title"] for c in calls],
        }
    states = {}
    for t in tasks:
        states[t["state"]] = states.get(t["state"], 0) + 1
    result["task_states"] = states
    print(json.dumps(result, indent=1))
    loop.quit()


if __name__ == "__main__":
    main()
