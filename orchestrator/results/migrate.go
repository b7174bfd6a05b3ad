package results

import (
	"database/sql"
	"fmt"
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
}

// migrate brings db to the newest schema, one transaction per step, and
// refuses a database written by a newer labctl.
func migrate(db *sql.DB) error { return migrateTo(db, len(migrations)) }

func migrateTo(db *sql.DB, target int) error {
	var v int
	if err := db.QueryRow(`PRAGMA user_version`).Scan(&v); err != nil {
		return fmt.Errorf("read schema version: %w", err)
	}
	if v > len(migrations) {
		return fmt.Errorf("schema version %d is newer than this labctl knows (%d); upgrade labctl or move results.db aside and it will be rebuilt from the run folders", v, len(migrations))
	}
	for ; v < target; v++ {
		tx, err := db.Begin()
		if err != nil {
			return fmt.Errorf("migrate to schema %d: %w", v+1, err)
		}
		if _, err := tx.Exec(migrations[v]); err != nil {
			tx.Rollback()
			return fmt.Errorf("migrate to schema %d: %w", v+1, err)
		}
		// PRAGMA takes no bound parameters; v is an int we control.
		if _, err := tx.Exec(fmt.Sprintf(`PRAGMA user_version = %d`, v+1)); err != nil {
			tx.Rollback()
			return fmt.Errorf("migrate to schema %d: %w", v+1, err)
		}
		if err := tx.Commit(); err != nil {
			return fmt.Errorf("migrate to schema %d: %w", v+1, err)
		}
	}
	return nil
}
