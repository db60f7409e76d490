CREATE TABLE "auth_epoch" (
	"id" integer PRIMARY KEY NOT NULL,
	"epoch" bigint DEFAULT 0 NOT NULL
);
