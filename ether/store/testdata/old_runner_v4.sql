-- A database migrated to version 4 by the hand-written runner that lived in
-- ether/store/migrate.go before internal/migrate (pg_dump of it, psql
-- meta-commands removed). internal/migrate must treat it as current.

SET statement_timeout = 0;
SET lock_timeout = 0;
SET idle_in_transaction_session_timeout = 0;
SET client_encoding = 'UTF8';
SET standard_conforming_strings = on;
SELECT pg_catalog.set_config('search_path', '', false);
SET check_function_bodies = false;
SET xmloption = content;
SET client_min_messages = warning;
SET row_security = off;

SET default_tablespace = '';

SET default_table_access_method = heap;

CREATE TABLE public.ether_schema_migrations (
    version integer NOT NULL,
    name text NOT NULL,
    applied_at timestamp with time zone DEFAULT now() NOT NULL
);

CREATE TABLE public.friends (
    owner_hash bigint NOT NULL,
    friend_hash bigint NOT NULL,
    created_at timestamp with time zone DEFAULT now() NOT NULL
);

CREATE TABLE public.ignores (
    owner_hash bigint NOT NULL,
    ignore_hash bigint NOT NULL,
    created_at timestamp with time zone DEFAULT now() NOT NULL
);

CREATE TABLE public.player_saves (
    user_hash bigint NOT NULL,
    save_data bytea NOT NULL,
    updated_at timestamp with time zone DEFAULT now() NOT NULL
);

CREATE TABLE public.player_settings (
    user_hash bigint NOT NULL,
    private_mode smallint DEFAULT 0 NOT NULL,
    updated_at timestamp with time zone DEFAULT now() NOT NULL,
    CONSTRAINT player_settings_private_mode_check CHECK (((private_mode >= 0) AND (private_mode <= 2)))
);

ALTER TABLE ONLY public.ether_schema_migrations
    ADD CONSTRAINT ether_schema_migrations_pkey PRIMARY KEY (version);

ALTER TABLE ONLY public.friends
    ADD CONSTRAINT friends_pkey PRIMARY KEY (owner_hash, friend_hash);

ALTER TABLE ONLY public.ignores
    ADD CONSTRAINT ignores_pkey PRIMARY KEY (owner_hash, ignore_hash);

ALTER TABLE ONLY public.player_saves
    ADD CONSTRAINT player_saves_pkey PRIMARY KEY (user_hash);

ALTER TABLE ONLY public.player_settings
    ADD CONSTRAINT player_settings_pkey PRIMARY KEY (user_hash);

CREATE INDEX idx_friends_reverse ON public.friends USING btree (friend_hash);

SET statement_timeout = 0;
SET lock_timeout = 0;
SET idle_in_transaction_session_timeout = 0;
SET client_encoding = 'UTF8';
SET standard_conforming_strings = on;
SELECT pg_catalog.set_config('search_path', '', false);
SET check_function_bodies = false;
SET xmloption = content;
SET client_min_messages = warning;
SET row_security = off;

INSERT INTO public.ether_schema_migrations VALUES (1, 'friends', '2026-11-23 23:37:06.109211+00');
INSERT INTO public.ether_schema_migrations VALUES (2, 'ignores', '2026-11-23 23:37:06.112467+00');
INSERT INTO public.ether_schema_migrations VALUES (3, 'player_saves', '2026-11-23 23:37:06.114632+00');
INSERT INTO public.ether_schema_migrations VALUES (4, 'player_settings', '2026-11-23 23:37:06.118398+00');

