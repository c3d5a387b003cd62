-- The delivery log shows what was sent (docs/webhooks.md § Delivery log): the exact body and headers of a delivery's
-- last attempt, stored by the worker when it records the attempt (the body carries the attempt's delivered_at and
-- the signature its time, so they cannot be rebuilt exactly afterwards).
-- AlterTable
ALTER TABLE "webhook_deliveries" ADD COLUMN     "last_request_body" TEXT,
ADD COLUMN     "last_request_headers" JSONB;
