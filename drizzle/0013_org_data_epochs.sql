CREATE TABLE "org_data_epochs" (
	"org_id" text PRIMARY KEY NOT NULL,
	"epoch" bigint DEFAULT 0 NOT NULL
);
