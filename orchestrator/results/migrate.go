package results

import (
	"context"
	"database/sql"
	"fmt"
	"path/filepath"
)

// migrations are the index schema's steps, in order. Step i brings the
// database from user_version i to i+1. Append new steps; never edit one that
// has shipped, since existing results.db files have already run it.
var migrations = []string{
	// 1: runs and their variants' summary metrics.
	`CREATE TABLE runs (
		id            TEXT PRIMARY KEY,
		lab           TEXT NOT NULL,
		scenario      TEXT NOT NULL,
		runtime       TEXT NOT NULL,
		status        TEXT NOT NULL,
		seed          INTEGER NOT NULL,
		started       INTEGER NOT NULL, -- unix nanoseconds, UTC
		finished      INTEGER,
		config_digest TEXT NOT NULL DEFAULT ''
	);
	CREATE TABLE variants (
		run_id                   TEXT NOT NULL REFERENCES runs(id) ON DELETE CASCADE,
		name                     TEXT NOT NULL,
		ecn                      INTEGER NOT NULL,
		pfc                      INTEGER NOT NULL,
		throughput_gbps_total    REAL NOT NULL,
		throughput_gbps_min_flow REAL NOT NULL,
		jain_fairness            REAL NOT NULL,
		drops                    INTEGER NOT NULL,
		pfc_pause_frames         INTEGER NOT NULL,
		pfc_pause_us             REAL NOT NULL,
		ecn_marked               INTEGER NOT NULL,
		cnp                      INTEGER NOT NULL,
		retransmits              INTEGER NOT NULL,
		latency_us_p99           REAL NOT NULL,
		source                   TEXT NOT NULL,
		PRIMARY KEY (run_id, name)
	);`,
	// 2: run-level summary fields for listing without reading run.json,
	// variant order and errors, and an index for "latest" lookups.
	`ALTER TABLE runs ADD COLUMN nos TEXT NOT NULL DEFAULT '';
	ALTER TABLE runs ADD COLUMN variant_count INTEGER NOT NULL DEFAULT 0;
	ALTER TABLE runs ADD COLUMN assertions_total INTEGER NOT NULL DEFAULT 0;
	ALTER TABLE runs ADD COLUMN assertions_failed INTEGER NOT NULL DEFAULT 0;
	ALTER TABLE variants ADD COLUMN position INTEGER NOT NULL DEFAULT 0;
	ALTER TABLE variants ADD COLUMN assertions_failed INTEGER NOT NULL DEFAULT 0;
	ALTER TABLE variants ADD COLUMN error TEXT NOT NULL DEFAULT '';
	CREATE INDEX runs_started ON runs(started DESC);
	CREATE INDEX runs_lab_scenario ON runs(lab, scenario, started DESC);`,
	// 3: a variant is a name at a repetition: a scenario with
	// repetitions has several rows per name. SQLite cannot change a
	// primary key, so the table is rebuilt with the rows it had (each
	// repetition 0: schema 2 could hold no other).
	`CREATE TABLE variants_v3 (
		run_id                   TEXT NOT NULL REFERENCES runs(id) ON DELETE CASCADE,
		name                     TEXT NOT NULL,
		repetition               INTEGER NOT NULL DEFAULT 0,
		ecn                      INTEGER NOT NULL,
		pfc                      INTEGER NOT NULL,
		throughput_gbps_total    REAL NOT NULL,
		throughput_gbps_min_flow REAL NOT NULL,
		jain_fairness            REAL NOT NULL,
		drops                    INTEGER NOT NULL,
		pfc_pause_frames         INTEGER NOT NULL,
		pfc_pause_us             REAL NOT NULL,
		ecn_marked               INTEGER NOT NULL,
		cnp                      INTEGER NOT NULL,
		retransmits              INTEGER NOT NULL,
		latency_us_p99           REAL NOT NULL,
		source                   TEXT NOT NULL,
		position                 INTEGER NOT NULL DEFAULT 0,
		assertions_failed        INTEGER NOT NULL DEFAULT 0,
		error                    TEXT NOT NULL DEFAULT '',
		PRIMARY KEY (run_id, name, repetition)
	);
	INSERT INTO variants_v3 (run_id, name, ecn, pfc, throughput_gbps_total, throughput_gbps_min_flow, jain_fairness,
		drops, pfc_pause_frames, pfc_pause_us, ecn_marked, cnp, retransmits, latency_us_p99, source, position,
		assertions_failed, error)
	SELECT run_id, name, ecn, pfc, throughput_gbps_total, throughput_gbps_min_flow, jain_fairness,
		drops, pfc_pause_frames, pfc_pause_us, ecn_marked, cnp, retransmits, latency_us_p99, source, position,
		assertions_failed, error FROM variants;
	DROP TABLE variants;
	ALTER TABLE variants_v3 RENAME TO variants;`,
	// 4: a figure the variant's model does not compute (Summary.NotComputed:
	// a flow-level estimate's drops, pauses, marks, p99) is NULL, not a 0
	// that a query would take for a result. The table is rebuilt with its
	// rows; the zeros rows of earlier schemas hold for such figures are
	// put right from the records in the same transaction
	// (metricsNullableSince, reindexNullable).
	`CREATE TABLE variants_v4 (
		run_id                   TEXT NOT NULL REFERENCES runs(id) ON DELETE CASCADE,
		name                     TEXT NOT NULL,
		repetition               INTEGER NOT NULL DEFAULT 0,
		ecn                      INTEGER NOT NULL,
		pfc                      INTEGER NOT NULL,
		throughput_gbps_total    REAL,
		throughput_gbps_min_flow REAL,
		jain_fairness            REAL,
		drops                    INTEGER,
		pfc_pause_frames         INTEGER,
		pfc_pause_us             REAL,
		ecn_marked               INTEGER,
		cnp                      INTEGER,
		retransmits              INTEGER,
		latency_us_p99           REAL,
		source                   TEXT NOT NULL,
		position                 INTEGER NOT NULL DEFAULT 0,
		assertions_failed        INTEGER NOT NULL DEFAULT 0,
		error                    TEXT NOT NULL DEFAULT '',
		PRIMARY KEY (run_id, name, repetition)
	);
	INSERT INTO variants_v4 SELECT run_id, name, repetition, ecn, pfc, throughput_gbps_total, throughput_gbps_min_flow,
		jain_fairness, drops, pfc_pause_frames, pfc_pause_us, ecn_marked, cnp, retransmits, latency_us_p99, source,
		position, assertions_failed, error FROM variants;
	DROP TABLE variants;
	ALTER TABLE variants_v4 RENAME TO variants;`,
}

// metricsNullableSince is the schema from which the index writes NULL
// for a figure a variant's model does not compute: an index migrated
// from an earlier one indexes its runs again from their records
// (reindexNullable), in the transaction that migrates it.
const metricsNullableSince = 4

// migrationInterrupt, when a test sets it, is called inside the migration's
// transaction between the schema steps and reindexNullable; an error it
// returns stands for the process killed there.
var migrationInterrupt func() error

// reindexNullable indexes again, from their records in the run folders
// under dir, the runs an index of a schema before metricsNullableSince
// holds: their rows hold 0 for figures their variant's model does not
// compute, which the records name (Summary.NotComputed). It runs on the
// migration's connection inside its transaction, so a process killed
// before it commits leaves the index at the old schema with its old rows,
// and the next open migrates it again: the schema never says NULL where
// the rows still hold those zeros. A run whose record is gone or
// unreadable keeps its row, as it would at any other open, and with it
// schema 3's zeros for the figures its model does not compute, until
// 'labctl results reindex' reads a record it can. So does a run whose
// record the index cannot hold (two variants of one name and repetition:
// a UNIQUE constraint): each run is indexed under a savepoint, rolled
// back to on an error, so one such record does not fail the migration,
// and with it every later open of the index. The index has no way to
// warn here; 'labctl results reindex' names the record and skips it
// alike.
func reindexNullable(conn *sql.Conn, dir string) error {
	ctx := context.Background()
	rows, err := conn.QueryContext(ctx, `SELECT id FROM runs`)
	if err != nil {
		return err
	}
	var ids []string
	for rows.Next() {
		var id string
		if err := rows.Scan(&id); err != nil {
			rows.Close()
			return err
		}
		ids = append(ids, id)
	}
	if err := rows.Close(); err != nil {
		return err
	}
	for _, id := range ids {
		if !ValidRunID(id) {
			continue // no folder of ours: keep the row
		}
		run, err := ReadRunFileWithoutSeries(filepath.Join(dir, id, RunFile))
		if err != nil {
			continue
		}
		if _, err := indexUnderSavepoint(conn, run); err != nil {
			return err
		}
	}
	return nil
}

// indexUnderSavepoint indexes run inside ex's transaction under a
// savepoint, so that a record the index cannot hold (two variants of one
// name and repetition) is rolled back alone and comes back as recordErr,
// for the caller to skip. An error of the index or its file system
// (indexTrouble), which would fail every run alike, comes back as err.
func indexUnderSavepoint(ex execer, run *Run) (recordErr, err error) {
	ctx := context.Background()
	if _, err := ex.ExecContext(ctx, `SAVEPOINT reindex_run`); err != nil {
		return nil, err
	}
	if err := indexTx(ex, run); err != nil {
		if indexTrouble(err) {
			return nil, err
		}
		if _, err := ex.ExecContext(ctx, `ROLLBACK TO reindex_run`); err != nil {
			return nil, err
		}
		recordErr = err
	}
	if _, err := ex.ExecContext(ctx, `RELEASE reindex_run`); err != nil {
		return nil, err
	}
	return recordErr, nil
}

// indexTrouble says whether a failed write is the index's or its file
// system's (busy, locked, out of memory, read-only, an I/O error, corrupt,
// full, not openable), which fails every run alike, not one record's.
func indexTrouble(err error) bool {
	switch c, _ := sqliteCode(err); c {
	case 3, 5, 6, 7, 8, 10, 11, 13, 14, 26:
		return true
	}
	return false
}

// migrate brings db to the newest schema and returns the schema version
// it found (0 for a new database). It refuses a database written by a newer
// labctl.
//
// Several labctl processes may open a new results.db at the same moment
// (two 'labctl run' started together in a fresh work dir). So the version
// is read inside the write transaction that applies the steps, taken with
// BEGIN IMMEDIATE: the first process to get the write lock migrates, the
// others wait for it (the connection's busy timeout) and then read the
// version it left, with nothing more to do. Reading it before the
// transaction let two processes both see 0 and both create the tables.
//
// dir is the results folder whose run records put right the rows of an
// index migrated across metricsNullableSince; "" for an index without one
// (in memory, built from the records afterwards).
func migrate(db *sql.DB, dir string) (int, error) { return migrateTo(db, len(migrations), dir) }

func migrateTo(db *sql.DB, target int, dir string) (from int, err error) {
	ctx := context.Background()
	// The version only ever rises, so one already at the target needs no
	// write lock: opening an up-to-date index stays a read.
	if err := db.QueryRowContext(ctx, `PRAGMA user_version`).Scan(&from); err != nil {
		return 0, fmt.Errorf("read schema version: %w", err)
	}
	if from == target {
		return from, nil
	}
	// BEGIN IMMEDIATE is a statement on one connection, so hold one for
	// the whole transaction (database/sql's Begin would take its own).
	conn, err := db.Conn(ctx)
	if err != nil {
		return 0, fmt.Errorf("read schema version: %w", err)
	}
	defer conn.Close()
	if _, err := conn.ExecContext(ctx, `BEGIN IMMEDIATE`); err != nil {
		if isBusy(err) {
			// Past the busy timeout: another process holds the write
			// lock, most likely migrating the same index.
			return 0, fmt.Errorf("migrate the schema: take the write lock: %w (another labctl is migrating results.db, or writing to it, for longer than %s; retry when it is done)", err, busyTimeout)
		}
		return 0, fmt.Errorf("migrate the schema: take the write lock: %w", err)
	}
	committed := false
	defer func() {
		if !committed {
			_, _ = conn.ExecContext(ctx, `ROLLBACK`)
		}
	}()
	var v int
	if err := conn.QueryRowContext(ctx, `PRAGMA user_version`).Scan(&v); err != nil {
		return 0, fmt.Errorf("read schema version: %w", err)
	}
	if v > len(migrations) {
		return v, fmt.Errorf("schema version %d is newer than this labctl knows (%d); upgrade labctl or move results.db aside and it will be rebuilt from the run folders", v, len(migrations))
	}
	from = v
	for ; v < target; v++ {
		if _, err := conn.ExecContext(ctx, migrations[v]); err != nil {
			return from, fmt.Errorf("migrate to schema %d: %w", v+1, err)
		}
	}
	if from > 0 && from < metricsNullableSince && target >= metricsNullableSince && dir != "" {
		if migrationInterrupt != nil {
			if err := migrationInterrupt(); err != nil {
				return from, err
			}
		}
		if err := reindexNullable(conn, dir); err != nil {
			return from, fmt.Errorf("migrate to schema %d: index the runs again from their records: %w", metricsNullableSince, err)
		}
	}
	if from < target {
		// PRAGMA takes no bound parameters; target is an int we control.
		if _, err := conn.ExecContext(ctx, fmt.Sprintf(`PRAGMA user_version = %d`, target)); err != nil {
			return from, fmt.Errorf("migrate to schema %d: %w", target, err)
		}
	}
	if _, err := conn.ExecContext(ctx, `COMMIT`); err != nil {
		return from, fmt.Errorf("migrate to schema %d: %w", target, err)
	}
	committed = true
	return from, nil
}
