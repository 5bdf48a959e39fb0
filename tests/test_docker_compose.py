"""The container stack (docker-compose.yml, Dockerfile, .dockerignore) as configuration we can check here.

Why: no Docker engine runs these tests, so a typo in a command, a queue name that the app does not know,
or a worker that starts before its broker would only show in production. Each test reads the files and
checks them against the code they start (the Celery app, the Typer CLI, the settings).
"""

from __future__ import annotations

import importlib
import os
import re
import shlex
import tomllib
from pathlib import Path
from typing import Any

import click
import pytest
import typer
import yaml

pytestmark = pytest.mark.domain
ROOT = Path(__file__).resolve().parents[1]
COMPOSE_FILE = ROOT / "docker-compose.yml"
DOCKERFILE = ROOT / "Dockerfile"
DOCKERIGNORE = ROOT / ".dockerignore"
ACL_TEMPLATE = ROOT / "deploy" / "redis" / "users.acl.template"
PG_ROLES = ROOT / "deploy" / "postgres" / "init" / "ella-roles.psql"

COMPOSE: dict[str, Any] = yaml.safe_load(COMPOSE_FILE.read_text())
SERVICES: dict[str, dict[str, Any]] = COMPOSE["services"]

# Celery's global options that take a value (before the subcommand).
CELERY_GLOBAL_VALUE_OPTIONS = {"-A", "--app", "-b", "--broker", "--result-backend", "--loader", "--config", "--workdir"}
CELERY_SUBCOMMANDS = {"worker", "beat", "flower"}


# --- reading the compose file ---------------------------------------------------------------------------


def argv(service: dict[str, Any]) -> list[str]:
    """A service's command as an argument vector (compose accepts a string or a list)."""
    command = service.get("command")
    if command is None:
        return []
    if isinstance(command, str):
        return shlex.split(command)
    return [str(part) for part in command]


def environment(service: dict[str, Any]) -> dict[str, str]:
    env = service.get("environment") or {}
    if isinstance(env, list):
        return dict(item.partition("=")[::2] for item in env)
    return {key: "" if value is None else str(value) for key, value in env.items()}


def depends_on(service: dict[str, Any]) -> dict[str, str | None]:
    """Dependency -> condition; the short (list) form has no condition."""
    deps = service.get("depends_on") or {}
    if isinstance(deps, list):
        return dict.fromkeys(deps)
    return {name: (spec or {}).get("condition") for name, spec in deps.items()}


def our_services() -> dict[str, dict[str, Any]]:
    """The services that run the image built from our Dockerfile."""
    return {name: service for name, service in SERVICES.items() if "build" in service}


def option_values(args: list[str], *names: str) -> list[str]:
    """Values of an option in any spelling: ``-Q a``, ``-Qa``, ``--queues a``, ``--queues=a``."""
    values = []
    for i, arg in enumerate(args):
        for name in names:
            if arg == name and i + 1 < len(args):
                values.append(args[i + 1])
            elif name.startswith("--") and arg.startswith(name + "="):
                values.append(arg[len(name) + 1 :])
            elif not name.startswith("--") and arg.startswith(name) and len(arg) > len(name):
                values.append(arg[len(name) :])
    return values


def celery_call(args: list[str]) -> tuple[str | None, str | None, list[str]]:
    """``celery -A mod sub ...`` -> (app module, subcommand, the subcommand's arguments)."""
    app, i = None, 1
    while i < len(args) and args[i].startswith("-"):
        arg = args[i]
        if arg in CELERY_GLOBAL_VALUE_OPTIONS:
            if arg in ("-A", "--app") and i + 1 < len(args):
                app = args[i + 1]
            i += 2
        else:
            if arg.startswith("--app="):
                app = arg.split("=", 1)[1]
            elif arg.startswith("-A") and len(arg) > 2:
                app = arg[2:]
            i += 1
    sub = args[i] if i < len(args) else None
    return app, sub, args[i + 1 :]


def celery_services(sub: str) -> dict[str, list[str]]:
    """Our services running ``celery ... <sub>``, with their subcommand arguments."""
    found = {}
    for name, service in our_services().items():
        args = argv(service)
        if args and args[0] == "celery":
            _, got, rest = celery_call(args)
            if got == sub:
                found[name] = rest
    return found


def seconds(duration: str | int | float) -> float:
    """A compose duration (``90s``, ``1m30s``, ``500ms``) in seconds."""
    if isinstance(duration, int | float):
        return float(duration)
    parts = re.findall(r"(\d+(?:\.\d+)?)(us|ms|s|m|h)", duration)
    assert parts and "".join(n + u for n, u in parts) == duration, f"not a compose duration: {duration!r}"
    scale = {"us": 1e-6, "ms": 1e-3, "s": 1, "m": 60, "h": 3600}
    return sum(float(n) * scale[u] for n, u in parts)


def named_volume_at(service: dict[str, Any], target: str) -> str | None:
    for volume in service.get("volumes") or []:
        if isinstance(volume, str):
            source, _, rest = volume.partition(":")
            if rest.split(":")[0] == target:
                return source
        elif volume.get("target") == target and volume.get("type") == "volume":
            return volume.get("source")
    return None


def health_test(service: dict[str, Any]) -> list[str]:
    test = (service.get("healthcheck") or {}).get("test")
    if isinstance(test, str):
        return shlex.split(test)
    return [str(part) for part in test or []]


# --- compose file -------------------------------------------------------------------------------------------


def test_compose_file_uses_the_compose_spec_without_obsolete_version_key():
    assert "version" not in COMPOSE
    assert our_services(), "no service builds our image"


@pytest.mark.parametrize("name", sorted(our_services()))
def test_every_service_of_our_image_runs_a_known_entry_point(name):
    args = argv(SERVICES[name])
    assert args, f"{name} has no command; the image's default is only `ella --help`"
    assert args[0] in {"celery", "ella"}, f"{name}: unknown entry point {args[0]!r}"


@pytest.mark.parametrize("name", sorted(n for n, s in our_services().items() if argv(s) and argv(s)[0] == "celery"))
def test_celery_commands_load_our_app_and_a_real_subcommand(name):
    from celery import Celery

    app_path, sub, _ = celery_call(argv(SERVICES[name]))
    assert app_path, f"{name}: celery without -A"
    module_name, _, attr = app_path.partition(":")
    module = importlib.import_module(module_name)
    app = getattr(module, attr or "app", None)
    assert isinstance(app, Celery), f"{name}: {app_path} has no Celery app"
    assert sub in CELERY_SUBCOMMANDS, f"{name}: unexpected celery subcommand {sub!r}"


@pytest.mark.parametrize("name", sorted(n for n, s in our_services().items() if argv(s) and argv(s)[0] == "ella"))
def test_ella_commands_exist_in_the_cli(name):
    from cli.main import cli

    command: click.Command = typer.main.get_command(cli)
    path = ["ella"]
    for token in argv(SERVICES[name])[1:]:
        if token.startswith("-") or not isinstance(command, click.Group):
            break
        assert token in command.commands, f"{name}: `{' '.join(path)}` has no subcommand {token!r}"
        command = command.commands[token]
        path.append(token)
    assert not isinstance(command, click.Group), f"{name}: `{' '.join(path)}` is a group, not a command"


def interpolate(value: str, env: dict[str, str]) -> str:
    """Compose's ``${VAR:?err}``, ``${VAR:-default}`` and ``${VAR}`` (the forms this file uses; see the compose
    spec's interpolation section): a required variable unset or empty raises, as ``docker compose`` exits."""

    def one(match: re.Match[str]) -> str:
        name, op, arg = match.group(1), match.group(2) or "", match.group(3) or ""
        got = env.get(name, "")
        if op == ":?" and not got:
            raise ValueError(f"required variable {name} is missing a value: {arg}")
        return got or (arg if op == ":-" else "")

    return re.sub(r"\$\{(\w+)(?:(:\?|:-)([^}]*))?\}", one, value)


# What an operator sets for `docker compose up` (the variables the file requires), interpolated into each service.
OPERATOR_ENV = {
    "ELLA_LLM_PROVIDER": "offline",
    "FLOWER_BASIC_AUTH": "u:p",
    "ELLA_INSPECT_BASIC_AUTH": "u:p",
    "ELLA_METRICS_BASIC_AUTH": "u:p",
    **{
        f"ELLA_REDIS_{user}_PASSWORD": f"redis-{user.lower()}"
        for user in ("GATEWAY", "WORKER", "BEAT", "FLOWER", "METRICS")
    },
    **{f"ELLA_PG_{role}_PASSWORD": f"pg-{role.lower()}" for role in ("OWNER", "WORKER", "BEAT", "INSPECT")},
    "POSTGRES_PASSWORD": "bootstrap",
    "ELLA_GATEWAY_SIGNING_KEY": "signing-key",
    "MINIO_ROOT_USER": "minio-root",
    "MINIO_ROOT_PASSWORD": "minio-root-password",
    "ELLA_S3_ACCESS_KEY": "ella-worker",
    "ELLA_S3_SECRET_KEY": "ella-worker-secret",
}


def container_settings(service: dict[str, Any], monkeypatch: pytest.MonkeyPatch):
    """The settings a container of ``service`` resolves: its compose environment as compose interpolates it for
    ``OPERATOR_ENV``, nothing from this process.

    (The test run sets its own ELLA_QUEUE_* names; the containers get the defaults unless compose says so.)
    """
    from adapters.settings import Settings

    for key in [k for k in os.environ if k.startswith("ELLA_")]:
        monkeypatch.delenv(key)
    for key, value in environment(service).items():
        if key.startswith("ELLA_"):
            monkeypatch.setenv(key, interpolate(value, OPERATOR_ENV))
    return Settings(_env_file=None)


def test_workers_consume_only_configured_queues_and_every_queue_has_a_worker(monkeypatch):
    workers = celery_services("worker")
    assert workers, "no worker service"
    all_queues: set[str] = set()
    consumed: set[str] = set()
    for name, args in workers.items():
        queues = set(container_settings(SERVICES[name], monkeypatch).queues)
        all_queues |= queues
        named = {q for value in option_values(args, "-Q", "--queues") for q in value.split(",") if q}
        assert named, f"{name}: a worker without -Q consumes the default queue only"
        assert named <= queues, f"{name}: unknown queues {sorted(named - queues)}"
        consumed |= named
    assert consumed == all_queues, f"queues without a worker: {sorted(all_queues - consumed)}"


def test_beat_scheduler_resolves_by_import():
    beats = celery_services("beat")
    assert beats
    for name, args in beats.items():
        schedulers = option_values(args, "-S", "--scheduler")
        assert schedulers == ["redbeat.RedBeatScheduler"], f"{name}: scheduler {schedulers}"
        module_name, _, cls = schedulers[0].rpartition(".")
        assert isinstance(getattr(importlib.import_module(module_name), cls), type)


def test_exactly_one_beat_runs():
    beats = celery_services("beat")
    beats |= {n: [] for n, s in our_services().items() if argv(s)[:2] == ["ella", "beat"]}
    assert len(beats) == 1, f"beat services: {sorted(beats)}"
    (service,) = (SERVICES[name] for name in beats)
    replicas = (service.get("deploy") or {}).get("replicas", 1)
    assert int(service.get("scale", replicas)) == 1


@pytest.mark.parametrize("variable", ["ELLA_REDIS_URL", "ELLA_DATABASE_URL"])
def test_services_that_use_redis_or_postgres_wait_until_what_their_url_names_is_healthy(variable):
    """Each waits for the host in its own URL: redis, PgBouncer for the application, PostgreSQL for the migration."""
    users = [name for name, service in SERVICES.items() if variable in environment(service)]
    assert users, f"nobody gets {variable}"
    for name in users:
        host = url_host(environment(SERVICES[name])[variable])
        assert host in SERVICES, f"{name}'s {variable} names {host}, which compose does not run"
        assert depends_on(SERVICES[name]).get(host) == "service_healthy", f"{name} uses {host}"


# Who each service is: (PostgreSQL role, Redis user); None: it gets no URL for that service at all.
IDENTITIES: dict[str, tuple[str | None, str | None]] = {
    "migrate": ("ella_owner", None),
    "worker-inbound": ("ella_worker", "worker"),
    "worker-cognition": ("ella_worker", "worker"),
    "worker-batch": ("ella_worker", "worker"),
    "beat": ("ella_beat", "beat"),
    "flower": (None, "flower"),
    "inspect": ("ella_inspect", None),
    # The metrics endpoint reads the queue lengths (LLEN) as a user of its own; no database.
    "metrics": (None, "metrics"),
}
PG_URL = re.compile(r"postgresql\+psycopg://([^:@/]+):(\$\{(\w+):\?[^}]+\})@([^:/@]+):(5432|6432)/([^/?]+)")
REDIS_URL = re.compile(r"redis://([^:@/]+):(\$\{(\w+):\?[^}]+\})@([^:/@]+):6379/(\d+)")


def url_host(url: str) -> str:
    """The host of a ``scheme://user:pass@host:port/...`` URL as compose writes it (before interpolation)."""
    return url.rsplit("@", 1)[-1].split(":", 1)[0].split("/", 1)[0]


def database_host(name: str) -> str:
    """Where a service's database URL must point: the migration straight at PostgreSQL (its DDL and alembic's
    one connection for the run want a session), every other service at PgBouncer (README, Connections)."""
    return "postgres" if name == "migrate" else "pgbouncer"


def acl_users() -> dict[str, str]:
    """User name -> its rules, from the ACL template (a user's line and its indented continuation lines)."""
    users: dict[str, str] = {}
    current = None
    for line in ACL_TEMPLATE.read_text().splitlines():
        if not line.strip() or line.startswith("#"):
            continue
        if line[0].isspace() and current:
            users[current] += " " + line.strip()
        else:
            _, current, rules = (line.split(" ", 2) + [""])[:3]
            users[current] = rules
    return users


def pg_default_roles() -> dict[str, str]:
    """psql variable -> default role name, from ella-roles.psql's ``\\set <kind> <role>`` lines."""
    return dict(re.findall(r"^\\set (owner|worker|beat|inspect) (\w+)$", PG_ROLES.read_text(), re.M))


def test_the_service_list_is_the_one_the_identities_cover():
    assert set(our_services()) == set(IDENTITIES), "a new service needs its own database role and Redis user"


@pytest.mark.parametrize("name", sorted(IDENTITIES))
def test_each_service_connects_as_its_own_user_with_a_password_compose_requires(name):
    """No password-less URL: the user is in the URL and the password is a ``${VAR:?}`` compose refuses to start
    without; each process kind has its own identity, and one it does not use is not given at all."""
    env = environment(SERVICES[name])
    role, redis_user = IDENTITIES[name]
    for variable, pattern, expected, dependency in (
        ("ELLA_DATABASE_URL", PG_URL, role, database_host(name)),
        ("ELLA_REDIS_URL", REDIS_URL, redis_user, "redis"),
    ):
        if expected is None:
            assert variable not in env, f"{name} does not use {dependency}: no {variable}"
            continue
        match = pattern.fullmatch(env.get(variable, ""))
        assert match, f"{name}: {variable} is not user:${{PASSWORD:?}}@host: {env.get(variable)!r}"
        user, password, password_var, host = match.groups()[:4]
        assert user == expected, f"{name} connects to {dependency} as {user}, not {expected}"
        assert host == dependency
        with pytest.raises(ValueError, match=password_var):
            interpolate(password, OPERATOR_ENV | {password_var: ""})
        assert interpolate(password, OPERATOR_ENV) == OPERATOR_ENV[password_var]


def test_no_two_identities_share_a_password_and_the_servers_get_every_one():
    """A password variable names one identity; the redis and postgres containers get each (to create the users
    and roles) from the same variables the services' URLs use."""
    by_variable: dict[str, set[tuple[str, str]]] = {}
    for name in IDENTITIES:
        env = environment(SERVICES[name])
        for variable, pattern in (("ELLA_DATABASE_URL", PG_URL), ("ELLA_REDIS_URL", REDIS_URL)):
            match = pattern.fullmatch(env.get(variable, ""))
            if match:
                by_variable.setdefault(match.group(3), set()).add((variable, match.group(1)))
    assert all(len(identities) == 1 for identities in by_variable.values()), by_variable
    redis_env, pg_env = environment(SERVICES["redis"]), environment(SERVICES["postgres"])
    for variable, identities in by_variable.items():
        ((kind, _user),) = identities
        server_env = redis_env if kind == "ELLA_REDIS_URL" else pg_env
        assert re.fullmatch(rf"\$\{{{variable}:\?[^}}]+\}}", server_env.get(variable, "")), f"{variable} not passed on"
    # The gateway's user is created too, though the gateway runs elsewhere.
    assert re.fullmatch(r"\$\{ELLA_REDIS_GATEWAY_PASSWORD:\?[^}]+\}", redis_env.get("ELLA_REDIS_GATEWAY_PASSWORD", ""))


def test_every_user_and_role_compose_names_is_defined_by_the_deploy_files():
    users, roles = acl_users(), set(pg_default_roles().values())
    for name, (role, redis_user) in IDENTITIES.items():
        assert role is None or role in roles, f"{name}: role {role} is not created by {PG_ROLES.name}"
        assert redis_user is None or redis_user in users, f"{name}: Redis user {redis_user} is not in the ACL"
    assert "gateway" in users
    assert not any("gateway" in role for role in roles), "the gateway gets no database role"


def test_the_redis_container_gets_the_password_of_every_acl_user_that_has_one():
    """Each ``@PASSWORD_<USER>@`` of the template is rendered from ELLA_REDIS_<USER>_PASSWORD, which compose must
    require and pass to the redis container (render-acl.sh refuses to start without it)."""
    placeholders = {user: re.findall(r"@PASSWORD_(\w+)@", rules) for user, rules in acl_users().items()}
    with_password = {user: found for user, found in placeholders.items() if found}
    assert sorted(with_password) == ["beat", "flower", "gateway", "metrics", "worker"]
    redis_env = environment(SERVICES["redis"])
    for user, found in with_password.items():
        assert found == [user.upper()], f"{user}'s password placeholder: {found}"
        variable = f"ELLA_REDIS_{user.upper()}_PASSWORD"
        assert re.fullmatch(rf"\$\{{{variable}:\?[^}}]+\}}", redis_env.get(variable, "")), f"{variable} not required"
        with pytest.raises(ValueError, match=variable):
            interpolate(redis_env[variable], OPERATOR_ENV | {variable: ""})


def test_redis_starts_with_the_rendered_acl_and_the_default_user_off():
    redis = SERVICES["redis"]
    mounts = [str(v) for v in redis.get("volumes") or []]
    assert "./deploy/redis:/etc/ella/redis:ro" in mounts
    assert redis.get("entrypoint") == ["sh", "/etc/ella/redis/entrypoint.sh"]
    entrypoint = (ROOT / "deploy" / "redis" / "entrypoint.sh").read_text()
    assert "render-acl.sh /etc/ella/redis/users.acl.template" in entrypoint
    assert re.search(r'exec docker-entrypoint\.sh "\$@" --aclfile "\$acl"', entrypoint)
    assert "/run/ella-redis" in (redis.get("tmpfs") or []), "the rendered ACL file belongs on a tmpfs"
    users = acl_users()
    assert users["default"].split()[0] == "off"
    assert "nopass" not in users["default"]
    # Only the healthcheck user may log in without a password, and it may only PING.
    assert [u for u, rules in users.items() if "nopass" in rules.split()] == ["healthcheck"]
    assert users["healthcheck"].split() == ["on", "nopass", "resetkeys", "resetchannels", "-@all", "+ping"]
    assert "--user healthcheck" in " ".join(health_test(redis))


def test_postgres_runs_the_role_script_on_a_new_volume_and_hands_the_database_to_the_owner():
    postgres = SERVICES["postgres"]
    assert "./deploy/postgres/init:/docker-entrypoint-initdb.d:ro" in [str(v) for v in postgres.get("volumes") or []]
    init = ROOT / "deploy" / "postgres" / "init"
    runs = sorted(p.name for p in init.iterdir() if p.suffix in {".sh", ".sql"})
    assert runs == ["10-ella-roles.sh"], "the image runs every .sh and .sql there; the .psql needs the script"
    assert "-f /docker-entrypoint-initdb.d/ella-roles.psql" in (init / "10-ella-roles.sh").read_text()
    assert pg_default_roles() == {
        "owner": "ella_owner",
        "worker": "ella_worker",
        "beat": "ella_beat",
        "inspect": "ella_inspect",
    }
    assert environment(postgres)["POSTGRES_USER"] not in set(pg_default_roles().values())


def test_redis_and_postgres_define_healthchecks_that_check_readiness():
    redis_test = health_test(SERVICES["redis"])
    assert redis_test and redis_test[0] in {"CMD", "CMD-SHELL"}
    assert "redis-cli" in " ".join(redis_test) and "ping" in " ".join(redis_test)

    pg_test = health_test(SERVICES["postgres"])
    assert pg_test and pg_test[0] in {"CMD", "CMD-SHELL"}
    pg_args = shlex.split(" ".join(pg_test[1:]))
    env = environment(SERVICES["postgres"])
    assert pg_args[0] == "pg_isready"
    assert option_values(pg_args, "-U", "--username") == [env["POSTGRES_USER"]]
    assert option_values(pg_args, "-d", "--dbname") == [env["POSTGRES_DB"]]
    # Over TCP: the entrypoint's temporary init server listens on the unix socket only.
    assert option_values(pg_args, "-h", "--host"), "pg_isready on the unix socket passes during initdb"


# --- PgBouncer (issue 35.6: a few dozen processes x a pool each would pass PostgreSQL's max_connections) ----


def test_pgbouncer_pools_transactions_in_front_of_postgres_once_it_is_healthy():
    bouncer = SERVICES["pgbouncer"]
    assert str(bouncer["image"]).startswith("edoburu/pgbouncer:v"), "a pinned release of the image"
    env = environment(bouncer)
    assert env["POOL_MODE"] == "transaction"
    assert (env["DB_HOST"], env["DB_PORT"], env["DB_NAME"]) == (
        "postgres",
        "5432",
        environment(SERVICES["postgres"])["POSTGRES_DB"],
    )
    assert depends_on(bouncer).get("postgres") == "service_healthy"
    assert bouncer.get("restart") == "unless-stopped"
    # Server connections: a cap below PostgreSQL's default max_connections (100), leaving room for the migration.
    assert 0 < int(env["DEFAULT_POOL_SIZE"]) <= int(env["MAX_DB_CONNECTIONS"]) < 100
    assert env["AUTH_TYPE"] == "scram-sha-256"


def test_pgbouncer_healthcheck_probes_its_own_port_over_tcp():
    bouncer = SERVICES["pgbouncer"]
    args = health_test(bouncer)
    assert args[0] in {"CMD", "CMD-SHELL"}
    probe = shlex.split(" ".join(args[1:]))
    assert probe[0] == "pg_isready"
    assert option_values(probe, "-h", "--host") == ["127.0.0.1"]
    assert option_values(probe, "-p", "--port") == [environment(bouncer)["LISTEN_PORT"]]
    assert option_values(probe, "-U", "--username") == ["ella_worker"], "a role the auth file holds"
    assert "ella_worker:ELLA_PG_WORKER_PASSWORD" in (ROOT / "deploy" / "pgbouncer" / "entrypoint.sh").read_text()


def test_application_services_reach_postgres_through_pgbouncer_and_the_migration_goes_direct():
    """Every service with a database URL but the migration names pgbouncer on its listening port; the migration
    names postgres:5432 (DDL, and alembic's one connection for the run, want a session of their own)."""
    port = environment(SERVICES["pgbouncer"])["LISTEN_PORT"]
    users = {
        name: environment(s)["ELLA_DATABASE_URL"]
        for name, s in SERVICES.items()
        if "ELLA_DATABASE_URL" in environment(s)
    }
    assert "migrate" in users and len(users) > 1
    for name, url in users.items():
        match = PG_URL.fullmatch(url)
        assert match, f"{name}: {url!r}"
        host, got_port = match.group(4), match.group(5)
        if name == "migrate":
            assert (host, got_port) == ("postgres", "5432")
        else:
            assert (host, got_port) == ("pgbouncer", port), f"{name} bypasses PgBouncer: {host}:{got_port}"


def test_pgbouncer_renders_a_password_line_for_every_role_that_connects_through_it_on_a_tmpfs():
    """The image writes one user's line; our entry point writes one per role whose URL names pgbouncer, from the
    same ``${VAR:?}`` the URL uses, into the AUTH_FILE on a tmpfs, then runs the image's entry point."""
    bouncer = SERVICES["pgbouncer"]
    env = environment(bouncer)
    assert bouncer.get("entrypoint") == ["sh", "/etc/ella/pgbouncer/entrypoint.sh"]
    assert "./deploy/pgbouncer:/etc/ella/pgbouncer:ro" in [str(v) for v in bouncer.get("volumes") or []]
    assert argv(bouncer)[0] == "pgbouncer", "setting the entry point drops the image's command: name it"
    auth_dir = env["AUTH_FILE"].rsplit("/", 1)[0]
    assert any(str(t).split(":")[0] == auth_dir for t in bouncer.get("tmpfs") or []), "the auth file belongs on a tmpfs"
    script = (ROOT / "deploy" / "pgbouncer" / "entrypoint.sh").read_text()
    assert 'exec /entrypoint.sh "$@"' in script
    through = {
        match.group(1): match.group(3)
        for name, service in SERVICES.items()
        if (match := PG_URL.fullmatch(environment(service).get("ELLA_DATABASE_URL", "")))
        and match.group(4) == "pgbouncer"
    }
    assert set(through) == {"ella_worker", "ella_beat", "ella_inspect"}
    for role, variable in through.items():
        assert f"{role}:{variable}" in script, f"the entry point writes no line for {role}"
        assert re.fullmatch(rf"\$\{{{variable}:\?[^}}]+\}}", env.get(variable, "")), f"{variable} not passed on"
    assert "ELLA_PG_OWNER_PASSWORD" not in env, "the owner never connects through PgBouncer"


def test_redis_persists_every_second_and_never_evicts():
    args = argv(SERVICES["redis"])
    assert args and args[0] == "redis-server"
    assert option_values(args, "--appendonly") == ["yes"]
    assert option_values(args, "--appendfsync") == ["everysec"]
    assert option_values(args, "--maxmemory-policy") == ["noeviction"]


@pytest.mark.parametrize(("service", "target"), [("redis", "/data"), ("postgres", "/var/lib/postgresql/data")])
def test_data_lives_on_declared_named_volumes(service, target):
    source = named_volume_at(SERVICES[service], target)
    assert source, f"{service}: nothing mounted at {target}"
    assert source in (COMPOSE.get("volumes") or {}), f"{service}: {source!r} is not a declared named volume"


def test_flower_requires_basic_auth_from_the_environment_not_the_command_line():
    import flower.options  # noqa: F401  (defines Flower's options on tornado's global parser)
    from tornado.options import options

    flowers = celery_services("flower")
    assert len(flowers) == 1
    ((name, args),) = flowers.items()
    auth = environment(SERVICES[name]).get("FLOWER_BASIC_AUTH", "")
    assert re.fullmatch(r"\$\{FLOWER_BASIC_AUTH:\?[^}]+\}", auth), f"not required by compose: {auth!r}"
    assert "basic_auth" in options, "Flower would not read FLOWER_BASIC_AUTH"
    assert not any(arg.startswith(("--basic-auth", "--basic_auth")) for arg in args)
    port = option_values(args, "--port")
    published = [str(p).rsplit(":", 1)[-1] for p in SERVICES[name].get("ports") or []]
    assert port and port[-1] in published, f"Flower listens on {port}, published {published}"


def test_flower_is_published_on_the_hosts_loopback_only():
    for name in celery_services("flower"):
        ports = [str(p) for p in SERVICES[name].get("ports") or []]
        assert ports and all(p.startswith("127.0.0.1:") for p in ports), f"{name} published on {ports}"


def test_the_inspection_page_requires_its_auth_from_compose_and_is_published_on_loopback_only(monkeypatch):
    """`ella inspect` refuses to start without ELLA_INSPECT_BASIC_AUTH; compose must refuse first (no half-up
    stack), pass it by environment (not in the process list), and publish the page on the host's loopback only,
    on the port the command listens on."""
    (name,) = [n for n, s in our_services().items() if argv(s)[:2] == ["ella", "inspect"]]
    service = SERVICES[name]
    auth = environment(service).get("ELLA_INSPECT_BASIC_AUTH", "")
    assert re.fullmatch(r"\$\{ELLA_INSPECT_BASIC_AUTH:\?[^}]+\}", auth), f"not required by compose: {auth!r}"
    assert "basic" not in " ".join(argv(service)).lower()
    assert container_settings(service, monkeypatch).inspect_basic_auth is not None  # the variable feeds the setting
    ports = [str(p) for p in service.get("ports") or []]
    assert ports and all(p.startswith("127.0.0.1:") for p in ports), f"{name} published on {ports}"
    assert option_values(argv(service), "--port")[-1] in [p.rsplit(":", 1)[-1] for p in ports]


def test_workers_and_beat_start_only_after_migrations_succeed():
    migrate = SERVICES["migrate"]
    assert argv(migrate)[:3] == ["ella", "db", "upgrade"]
    assert migrate.get("restart") == "no"
    assert depends_on(migrate).get("postgres") == "service_healthy"
    for name in [*celery_services("worker"), *celery_services("beat")]:
        assert depends_on(SERVICES[name]).get("migrate") == "service_completed_successfully", name


def test_beat_comes_back_after_it_exits_and_waits_at_most_a_short_lock():
    """Beat rides out a Redis outage, but if it ever exits compose restarts it, and a lock it could not release
    (Redis away) holds its successor back for ``beat_lock_timeout_s``, not redbeat's 5 minutes."""
    from adapters.settings import Settings
    from workers.app import celery_config

    (name,) = celery_services("beat")
    assert SERVICES[name].get("restart") == "unless-stopped"
    assert celery_config(Settings())["redbeat_lock_timeout"] <= 60


@pytest.mark.parametrize("name", sorted(celery_services("worker")))
def test_workers_get_time_for_a_warm_shutdown_and_come_back(name):
    service = SERVICES[name]
    assert seconds(service.get("stop_grace_period", "10s")) >= 60
    assert service.get("stop_signal", "SIGTERM") == "SIGTERM", "Celery's warm shutdown is SIGTERM"
    assert service.get("restart") == "unless-stopped"


def test_the_inbound_worker_waits_on_the_model_in_threads_up_to_the_in_flight_cap(monkeypatch):
    """A live reply waits seconds on the model; a prefork child held per waiting call caps replies at
    concurrency / latency, far below the in-flight cap's cap / latency (bench/model_latency.py)."""
    args = celery_services("worker")["worker-inbound"]
    pools = option_values(args, "-P", "--pool")
    assert pools and pools[-1] in {"threads", "gevent", "eventlet"}, f"inbound pool {pools or ['prefork']}"
    threads = int(option_values(args, "-c", "--concurrency")[-1])
    threads *= int((SERVICES["worker-inbound"].get("deploy") or {}).get("replicas", 1))
    cap = container_settings(SERVICES["worker-inbound"], monkeypatch).llm_max_concurrency
    assert threads >= cap, f"{threads} threads can never use the {cap} model calls the cap allows"


def test_the_inbound_worker_keeps_a_pooled_connection_for_each_thread_within_the_connection_budget(monkeypatch):
    """Its threads share one process's SQLAlchemy pool: with fewer pooled connections than threads, a burst opens
    and closes the overflow ones again and again (pool 5 for 8 threads: 86 connections opened in one
    bench/ingest_throughput.py run, pool 10: 17), each a new PgBouncer client or, without one, a new backend. The
    most a process holds stays the README's 10 (Connections)."""
    args = celery_services("worker")["worker-inbound"]
    threads = int(option_values(args, "-c", "--concurrency")[-1])
    inbound = container_settings(SERVICES["worker-inbound"], monkeypatch)
    assert inbound.database_pool_size >= threads
    assert inbound.database_pool_size + inbound.database_max_overflow <= 10
    for name, service in SERVICES.items():  # the override keeps every other variable of the workers' environment
        if name.startswith("worker-"):
            assert environment(service).keys() - {"ELLA_DATABASE_POOL_SIZE", "ELLA_DATABASE_MAX_OVERFLOW"} == (
                environment(SERVICES["worker-cognition"]).keys()
            ), name


# --- Dockerfile and .dockerignore --------------------------------------------------------------------------


def dockerfile_instructions() -> list[tuple[str, str]]:
    """(INSTRUCTION, arguments) with line continuations joined and comments dropped."""
    text = re.sub(r"\\\n", " ", DOCKERFILE.read_text())
    out = []
    for line in text.splitlines():
        line = line.strip()
        if line and not line.startswith("#"):
            keyword, _, rest = line.partition(" ")
            out.append((keyword.upper(), rest.strip()))
    return out


def test_dockerfile_builds_on_python_311_and_runs_unprivileged():
    instructions = dockerfile_instructions()
    stages: list[list[tuple[str, str]]] = []
    stage_names: set[str] = set()
    for keyword, rest in instructions:
        if keyword == "FROM":
            words = [w for w in rest.split() if not w.startswith("--")]
            image = words[0]
            if image not in stage_names:
                assert image.startswith("python:3.11"), f"base image {image}"
            if len(words) == 3 and words[1].upper() == "AS":
                stage_names.add(words[2])
            stages.append([])
        elif stages:
            stages[-1].append((keyword, rest))
    assert stages, "no FROM"
    users = [rest for keyword, rest in stages[-1] if keyword == "USER"]
    assert users, "the final image runs as root"
    assert users[-1].split(":")[0] not in {"root", "0"}


def test_dockerfile_copies_everything_the_package_ships():
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())
    setuptools_cfg = project["tool"]["setuptools"]
    needed = {f"{module}.py" for module in setuptools_cfg.get("py-modules", [])}
    needed.add(project["project"]["readme"])  # setuptools reads it while building
    for pattern in setuptools_cfg["packages"]["find"]["include"]:
        needed |= {p.name for p in ROOT.glob(pattern) if p.is_dir() and any(p.glob("*.py"))}
    assert {"workers", "migrations", "beat_schedule.py"} <= needed

    copied: set[str] = set()
    for keyword, rest in dockerfile_instructions():
        if keyword == "COPY":
            words = [w for w in rest.split() if not w.startswith("--")]
            if any(w.startswith("--from") for w in rest.split()):
                continue
            copied |= {w.rstrip("/").removeprefix("./") for w in words[:-1]}
    if "." not in copied:
        assert needed <= copied, f"not copied into the build: {sorted(needed - copied)}"


def test_dockerignore_keeps_secrets_and_local_state_out_of_the_build():
    patterns = {line.strip().rstrip("/") for line in DOCKERIGNORE.read_text().splitlines()}
    assert {".env", ".venv", "var", ".git"} <= patterns


def test_every_worker_keeps_image_anchor_bytes_on_the_declared_named_volume_the_settings_point_at():
    """A worker renders an anchor once and any worker reads it later: the bytes must be on one shared volume,
    at the directory the settings resolve ``image_dir`` to (not in a container's throwaway layer)."""
    workers = celery_services("worker")
    assert workers
    for name in workers:
        target = environment(SERVICES[name]).get("ELLA_IMAGE_DIR", "")
        assert target.startswith("/"), f"{name}: ELLA_IMAGE_DIR is not an absolute path"
        source = named_volume_at(SERVICES[name], target)
        assert source, f"{name}: nothing mounted at {target}"
        assert source in (COMPOSE.get("volumes") or {}), f"{name}: {source!r} is not a declared named volume"


def test_compose_needs_the_provider_named_and_workers_refuse_anthropic_without_a_key():
    """An empty key used to start the whole stack on the offline rule engine, silently. Now compose will not
    interpolate without ELLA_LLM_PROVIDER, and what it passes to our processes is refused unless it is
    ``offline`` by name or ``anthropic`` with a key."""
    from adapters.settings import Settings

    for name, service in our_services().items():
        provider = environment(service).get("ELLA_LLM_PROVIDER", "")
        assert re.fullmatch(r"\$\{ELLA_LLM_PROVIDER:\?[^}]+\}", provider), f"{name}: not required: {provider!r}"
        key = environment(service).get("ELLA_ANTHROPIC_API_KEY", "")
        with pytest.raises(ValueError, match="ELLA_LLM_PROVIDER"):
            interpolate(provider, {"ELLA_ANTHROPIC_API_KEY": "sk-ant-x"})

        def settings_for(env: dict[str, str], provider: str = provider, key: str = key) -> Settings:
            return Settings(llm_provider=interpolate(provider, env), anthropic_api_key=interpolate(key, env))

        assert settings_for({"ELLA_LLM_PROVIDER": "offline"}).offline_refusal() is None
        live = settings_for({"ELLA_LLM_PROVIDER": "anthropic", "ELLA_ANTHROPIC_API_KEY": "sk-ant-x"})
        assert live.offline_refusal() is None and live.llm_engine == "anthropic"
        keyless = settings_for({"ELLA_LLM_PROVIDER": "anthropic"}).offline_refusal()
        assert keyless is not None and "no API key" in keyless


# --- the Prometheus endpoint and the multiprocess files (adapters/metrics.py) -----------------------------------------


def metrics_services() -> dict[str, dict[str, Any]]:
    return {n: s for n, s in our_services().items() if argv(s)[:3] == ["ella", "metrics", "serve"]}


def test_the_metrics_endpoint_requires_its_auth_from_compose_and_is_published_on_loopback_only(monkeypatch):
    """`ella metrics serve` refuses to start without ELLA_METRICS_BASIC_AUTH; compose refuses first, passes it by
    environment (not in the process list) and publishes the endpoint on the host's loopback only."""
    services = metrics_services()
    assert len(services) == 1, f"metrics endpoints: {sorted(services)}"
    ((name, service),) = services.items()
    auth = environment(service).get("ELLA_METRICS_BASIC_AUTH", "")
    assert re.fullmatch(r"\$\{ELLA_METRICS_BASIC_AUTH:\?[^}]+\}", auth), f"not required by compose: {auth!r}"
    with pytest.raises(ValueError, match="ELLA_METRICS_BASIC_AUTH"):
        interpolate(auth, OPERATOR_ENV | {"ELLA_METRICS_BASIC_AUTH": ""})
    assert "basic" not in " ".join(argv(service)).lower()
    assert container_settings(service, monkeypatch).metrics_basic_auth is not None  # the variable feeds the setting
    ports = [str(p) for p in service.get("ports") or []]
    assert ports and all(p.startswith("127.0.0.1:") for p in ports), f"{name} published on {ports}"
    assert option_values(argv(service), "--port")[-1] in [p.rsplit(":", 1)[-1] for p in ports]
    assert depends_on(service).get("redis") == "service_healthy"


def dockerfile_user_id() -> str:
    users = [rest for keyword, rest in dockerfile_instructions() if keyword == "USER"]
    return users[-1].split(":")[0]


def test_workers_beat_and_the_endpoint_share_one_metrics_volume_the_image_user_may_write(monkeypatch):
    """Each worker and beat writes its multiprocess files under ELLA_METRICS_DIR and the endpoint sums what is
    there: one declared volume, mounted at the directory each one's settings resolve; in memory and owned by the
    image's (unprivileged) user, since the directory is not in the image for a new volume to copy its owner from."""
    writers = [*celery_services("worker"), *celery_services("beat")]
    readers = list(metrics_services())
    assert writers and readers
    sources = set()
    for name in writers + readers:
        directory = container_settings(SERVICES[name], monkeypatch).metrics_dir
        assert directory is not None and directory.is_absolute(), f"{name}: ELLA_METRICS_DIR {directory}"
        source = named_volume_at(SERVICES[name], str(directory))
        assert source, f"{name}: nothing mounted at {directory}"
        sources.add(source)
    assert len(sources) == 1, f"the writers and the endpoint mount different volumes: {sorted(sources)}"
    (source,) = sources
    volume = (COMPOSE.get("volumes") or {}).get(source) or {}
    options = volume.get("driver_opts") or {}
    assert options.get("type") == "tmpfs", f"{source}: not in memory: {volume}"
    mount_options = dict(o.partition("=")[::2] for o in str(options.get("o", "")).split(","))
    assert mount_options.get("uid") == dockerfile_user_id(), f"{source}: not owned by the image's user: {volume}"
    for name, service in our_services().items():
        if name not in writers + readers:
            assert "ELLA_METRICS_DIR" not in environment(service), f"{name} writes metrics nobody mounts"


def test_workers_run_as_production_and_compose_requires_the_gateways_signing_key(monkeypatch):
    """A worker checks signed requests (ella/signing.py) with the key compose requires, and, as production,
    would refuse to start without it: the broker password alone erases nobody (issue 36)."""
    for name in celery_services("worker"):
        key = environment(SERVICES[name]).get("ELLA_GATEWAY_SIGNING_KEY", "")
        assert re.fullmatch(r"\$\{ELLA_GATEWAY_SIGNING_KEY:\?[^}]+\}", key), f"{name}: not required: {key!r}"
        settings = container_settings(SERVICES[name], monkeypatch)
        assert settings.env == "production" and settings.signing_refusal() is None, name
        assert settings.model_copy(update={"gateway_signing_key": None}).signing_refusal() is not None


MINIO_POLICY = ROOT / "deploy" / "minio" / "images-policy.json"
MINIO_INIT = ROOT / "deploy" / "minio" / "init.sh"


def test_minio_keeps_the_pictures_on_a_named_volume_is_healthchecked_and_published_on_loopback_only():
    """The pictures' object store: an official, pinned image, its data on a declared named volume, a healthcheck
    that asks the server (its image has no curl), the S3 port on the host's loopback only, its administrator's
    credentials required from the environment."""
    minio = SERVICES["minio"]
    assert re.fullmatch(r"minio/minio:RELEASE\.[0-9T-]+Z", minio["image"]), minio["image"]
    assert argv(minio)[:2] == ["server", "/data"]
    source = named_volume_at(minio, "/data")
    assert source and source in (COMPOSE.get("volumes") or {})
    assert health_test(minio) == ["CMD", "mc", "ready", "local"]
    assert minio["ports"] == ["127.0.0.1:9000:9000"]
    for variable in ("MINIO_ROOT_USER", "MINIO_ROOT_PASSWORD"):
        with pytest.raises(ValueError, match=variable):
            interpolate(environment(minio)[variable], OPERATOR_ENV | {variable: ""})


def test_minio_init_makes_the_bucket_and_the_workers_user_with_a_policy_on_that_bucket_only():
    """The one-shot runs after MinIO is healthy, makes the bucket the workers are configured with and the
    workers' own user, whose policy names that bucket's objects and nothing else (no admin, no other bucket)."""
    import json

    init = SERVICES["minio-init"]
    assert re.fullmatch(r"minio/mc:RELEASE\.[0-9T-]+Z", init["image"]), init["image"]
    assert depends_on(init) == {"minio": "service_healthy"} and init["restart"] == "no"
    assert init["entrypoint"] == ["sh", "/etc/ella/minio/init.sh"]
    assert "./deploy/minio:/etc/ella/minio:ro" in init["volumes"]
    script = MINIO_INIT.read_text()
    bucket = environment(SERVICES["worker-inbound"])["ELLA_S3_BUCKET"]
    assert f"mc mb --ignore-existing ella/{bucket}" in script
    assert 'mc admin user add ella "$ELLA_S3_ACCESS_KEY" "$ELLA_S3_SECRET_KEY"' in script
    assert 'mc admin policy attach ella ella-images --user "$ELLA_S3_ACCESS_KEY"' in script
    policy = json.loads(MINIO_POLICY.read_text())
    resources = {r for statement in policy["Statement"] for r in statement["Resource"]}
    assert resources == {f"arn:aws:s3:::{bucket}", f"arn:aws:s3:::{bucket}/*"}
    actions = {a for statement in policy["Statement"] for a in statement["Action"]}
    assert actions <= {"s3:GetBucketLocation", "s3:ListBucket", "s3:GetObject", "s3:PutObject", "s3:DeleteObject"}
    assert all(statement["Effect"] == "Allow" for statement in policy["Statement"])


def test_workers_keep_pictures_in_minio_as_their_own_user_after_the_bucket_is_made(monkeypatch):
    """Every worker resolves the S3 store: MinIO's endpoint inside compose, the gateway's endpoint on the host's
    loopback, keys compose requires (not MinIO's administrator's), and it starts after minio-init made the bucket
    and the user."""
    from adapters.images import image_store

    for name in celery_services("worker"):
        service = SERVICES[name]
        env = environment(service)
        for variable in ("ELLA_S3_ACCESS_KEY", "ELLA_S3_SECRET_KEY"):
            assert re.fullmatch(rf"\$\{{{variable}:\?[^}}]+\}}", env[variable]), f"{name}: {variable} not required"
        assert "MINIO_ROOT_PASSWORD" not in " ".join(env.values()), f"{name} gets MinIO's administrator's password"
        assert depends_on(service).get("minio-init") == "service_completed_successfully", name
        settings = container_settings(service, monkeypatch)
        assert settings.image_store == "s3" and settings.s3_endpoint == "http://minio:9000"
        assert settings.s3_public_endpoint == "http://127.0.0.1:9000"
        assert settings.s3_access_key is not None and settings.s3_access_key.get_secret_value() == "ella-worker"
        assert image_store(settings).name == "s3"  # the store the settings choose (a client; no request is made)
