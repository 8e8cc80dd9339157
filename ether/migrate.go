package ether

import (
	"context"
	"fmt"
	"log/slog"

	"github.com/corrosion/corrosion/ether/store"
)

// Migrate creates the database if it is missing and applies the schema
// migrations it lacks (the seed's `mix ecto.create` + `mix ecto.migrate`).
func Migrate(ctx context.Context, cfg Config, log *slog.Logger) error {
	if err := cfg.Validate(); err != nil {
		return err
	}
	applied, err := store.Migrate(ctx, cfg.DSN())
	if err != nil {
		return fmt.Errorf("migrate database %s on %s:%d: %w", cfg.DBName, cfg.DBHost, cfg.DBPort, err)
	}
	log.Info("database migrated", "database", cfg.DBName, "applied", applied, "version", store.LatestVersion())
	return nil
}
