-- Subdomains are unique platform-wide (apps_subdomain_key, since 20261121063238) and now also one DNS label each,
-- enforced here rather than trusted to the code that builds them (Prisma's schema does not model CHECK constraints).
ALTER TABLE "apps" ADD CONSTRAINT "apps_subdomain_dns_label"
  CHECK ("subdomain" IS NULL OR "subdomain" ~ '^[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?$');
