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
	applied, err := store.Migrate(ctx, cfg.DB.URL())
	if err != nil {
		return fmt.Errorf("migrate database %s: %w", cfg.DB, err)
	}
	log.Info("database migrated", "database", cfg.DB.Name, "applied", applied, "version", store.LatestVersion())
	return nil
}
