CREATE INDEX "cash_item_lines_item_idx" ON "cash_item_lines" USING btree ("cash_item_id");--> statement-breakpoint
CREATE INDEX "credit_note_allocations_cn_idx" ON "credit_note_allocations" USING btree ("credit_note_id");--> statement-breakpoint
CREATE INDEX "credit_note_lines_cn_idx" ON "credit_note_lines" USING btree ("credit_note_id");--> statement-breakpoint
CREATE INDEX "purchase_order_lines_po_idx" ON "purchase_order_lines" USING btree ("purchase_order_id");