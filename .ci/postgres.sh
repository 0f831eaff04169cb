# Sourced by .ci/run (". .ci/postgres.sh"): installs PostgreSQL from apt,
# starts a cluster listening on loopback only, creates a role and a
# database for the tests, and exports SEXTANT_TEST_POSTGRES, the URL the
# PostgreSQL tests (the store suite, the concurrent publishers, the
# overlay, publish) connect to. Runs as root (CI does); the server itself
# runs as the postgres user, through pg_ctlcluster. Idempotent: a second
# run reuses the installed packages, the running cluster, the role and
# the database. Pipelines are avoided: .ci/run sets pipefail.
echo "== PostgreSQL from apt, on loopback, for the shared-graph tests"
if ! command -v pg_ctlcluster >/dev/null || [ -z "$(ls /usr/lib/postgresql 2>/dev/null)" ]; then
	apt-get update -qq >&2
	DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends postgresql >&2
fi
pg_version="$(ls /usr/lib/postgresql | sort -V | tail -n 1)"
pg_clusters="$(pg_lsclusters -h)"
if ! grep -q "^$pg_version main " <<<"$pg_clusters"; then
	pg_createcluster "$pg_version" main >&2
	pg_clusters="$(pg_lsclusters -h)"
fi
pg_port="$(awk -v v="$pg_version" '$1 == v && $2 == "main" {print $3}' <<<"$pg_clusters")"
pg_status="$(awk -v v="$pg_version" '$1 == v && $2 == "main" {print $4}' <<<"$pg_clusters")"
if [ "$pg_status" != online ]; then
	# Loopback only; room for the concurrency test (8 publishers and 20
	# readers, each store with its own pool); no fsync, as the data is
	# thrown away.
	pg_ctlcluster "$pg_version" main start -- -o "-c listen_addresses=127.0.0.1 -c max_connections=200 -c fsync=off" >&2
fi
runuser -u postgres -- psql -q -p "$pg_port" -v ON_ERROR_STOP=1 >&2 <<'SQL'
SELECT 'CREATE ROLE sextant LOGIN PASSWORD ''sextant-ci'''
	WHERE NOT EXISTS (SELECT FROM pg_roles WHERE rolname = 'sextant') \gexec
SELECT 'CREATE DATABASE sextant_test OWNER sextant'
	WHERE NOT EXISTS (SELECT FROM pg_database WHERE datname = 'sextant_test') \gexec
SQL
export SEXTANT_TEST_POSTGRES="postgres://sextant:sextant-ci@127.0.0.1:${pg_port}/sextant_test?sslmode=disable"
echo "PostgreSQL $pg_version on 127.0.0.1:$pg_port"
