#!/usr/bin/python3
"""A tray for the end-to-end test: the smallest real StatusNotifierWatcher and host.

It owns org.kde.StatusNotifierWatcher on the session bus it is started on, so an app's
StatusNotifierItem registers with it as with a desktop's panel, and it reads the item the way
a panel does: its properties and its com.canonical.dbusmenu menu, where it can also click an
entry. The test talks to it over stdin and stdout, one JSON object a line each way:

    {"op": "item"}          -> {"item": null} until an item registered, then
                               {"item": {"service", "path", "title", "status", "menu": [...]}}
                               (menu: {"id", "label", "enabled", "type", "visible"} per
                               top-level entry, in order)
    {"op": "click", "id": 5} -> {"clicked": 5}
    any failure             -> {"error": "..."}

It prints {"ready": true} once it owns the name. Needs python3-gi (GLib's own D-Bus).
"""

import json
import os
import sys

from gi.repository import Gio, GLib

WATCHER = "org.kde.StatusNotifierWatcher"
WATCHER_PATH = "/StatusNotifierWatcher"
ITEM = "org.kde.StatusNotifierItem"
MENU = "com.canonical.dbusmenu"
WATCHER_XML = f"""
<node>
  <interface name="{WATCHER}">
    <method name="RegisterStatusNotifierItem"><arg name="service" type="s" direction="in"/></method>
    <method name="RegisterStatusNotifierHost"><arg name="service" type="s" direction="in"/></method>
    <property name="RegisteredStatusNotifierItems" type="as" access="read"/>
    <property name="IsStatusNotifierHostRegistered" type="b" access="read"/>
    <property name="ProtocolVersion" type="i" access="read"/>
    <signal name="StatusNotifierItemRegistered"><arg type="s"/></signal>
    <signal name="StatusNotifierItemUnregistered"><arg type="s"/></signal>
    <signal name="StatusNotifierHostRegistered"/>
  </interface>
</node>
"""


class Tray:
    def __init__(self, bus):
        self.bus = bus
        # (bus name, object path) of each registered item, oldest first.
        self.items = []

    def on_call(self, bus, sender, path, interface, method, params, invocation):
        if method == "RegisterStatusNotifierItem":
            (service,) = params.unpack()
            # The spec lets an item name itself by its object path (appindicator does) or by
            # a bus name; either way the caller is the bus name to talk to.
            item = (sender, service) if service.startswith("/") else (service, "/StatusNotifierItem")
            if item not in self.items:
                self.items.append(item)
            bus.emit_signal(None, WATCHER_PATH, WATCHER, "StatusNotifierItemRegistered",
                            GLib.Variant("(s)", (sender + service,)))
            invocation.return_value(None)
        elif method == "RegisterStatusNotifierHost":
            invocation.return_value(None)
        else:
            invocation.return_dbus_error("org.freedesktop.DBus.Error.UnknownMethod", method)

    def on_get(self, bus, sender, path, interface, name):
        if name == "RegisteredStatusNotifierItems":
            return GLib.Variant("as", [name + path for name, path in self.items])
        if name == "IsStatusNotifierHostRegistered":
            return GLib.Variant("b", True)
        if name == "ProtocolVersion":
            return GLib.Variant("i", 0)
        return None

    def on_owner_changed(self, bus, sender, path, interface, signal, params):
        name, _old, new = params.unpack()
        if new == "":
            self.items = [item for item in self.items if item[0] != name]

    def call(self, name, path, interface, method, args, reply):
        return self.bus.call_sync(name, path, interface, method, args, GLib.VariantType(reply),
                                  Gio.DBusCallFlags.NONE, 5000, None).unpack()

    def item(self):
        if not self.items:
            return None
        name, path = self.items[-1]
        (props,) = self.call(name, path, "org.freedesktop.DBus.Properties", "GetAll",
                             GLib.Variant("(s)", (ITEM,)), "(a{sv})")
        menu_path = props.get("Menu", path + "/Menu")
        _revision, (_root, _root_props, children) = self.call(
            name, menu_path, MENU, "GetLayout", GLib.Variant("(iias)", (0, -1, [])), "(u(ia{sv}av))")
        menu = [{"id": child[0], "label": child[1].get("label", ""),
                 "enabled": child[1].get("enabled", True), "type": child[1].get("type", "standard"),
                 "visible": child[1].get("visible", True)}
                for child in children]
        return {"service": name, "path": path, "title": props.get("Title", ""),
                "status": props.get("Status", ""), "menu": menu}

    def click(self, entry):
        name, path = self.items[-1]
        (props,) = self.call(name, path, "org.freedesktop.DBus.Properties", "GetAll",
                             GLib.Variant("(s)", (ITEM,)), "(a{sv})")
        self.call(name, props.get("Menu", path + "/Menu"), MENU, "Event",
                  GLib.Variant("(isvu)", (entry, "clicked", GLib.Variant("i", 0), 0)), "()")

    def answer(self, request):
        op = request.get("op")
        if op == "item":
            return {"item": self.item()}
        if op == "click":
            self.click(int(request["id"]))
            return {"clicked": request["id"]}
        return {"error": f"unknown op {op!r}"}


def say(message):
    sys.stdout.write(json.dumps(message) + "\n")
    sys.stdout.flush()


def main():
    bus = Gio.bus_get_sync(Gio.BusType.SESSION, None)
    tray = Tray(bus)
    info = Gio.DBusNodeInfo.new_for_xml(WATCHER_XML)
    bus.register_object(WATCHER_PATH, info.interfaces[0], tray.on_call, tray.on_get, None)
    bus.signal_subscribe("org.freedesktop.DBus", "org.freedesktop.DBus", "NameOwnerChanged",
                         "/org/freedesktop/DBus", None, Gio.DBusSignalFlags.NONE, tray.on_owner_changed)
    loop = GLib.MainLoop()
    pending = b""

    def on_input(fd, condition):
        nonlocal pending
        chunk = os.read(fd, 65536)
        if not chunk:
            loop.quit()
            return False
        pending += chunk
        while b"\n" in pending:
            line, pending = pending.split(b"\n", 1)
            if not line.strip():
                continue
            try:
                say(tray.answer(json.loads(line)))
            except Exception as error:  # reported to the test, which fails with it
                say({"error": str(error)})
        return True

    def on_acquired(_bus, _name):
        GLib.io_add_watch(sys.stdin.fileno(), GLib.IO_IN | GLib.IO_HUP, on_input)
        say({"ready": True})

    def on_lost(_bus, _name):
        say({"error": f"could not own {WATCHER}"})
        loop.quit()

    Gio.bus_own_name_on_connection(bus, WATCHER, Gio.BusNameOwnerFlags.NONE, on_acquired, on_lost)
    loop.run()


if __name__ == "__main__":
    main()
