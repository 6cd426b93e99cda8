"""One EDIS KVM server, chosen by location name, minimum RAM and operating system."""
import pulumi
import pulumi_edis as edis

config = pulumi.Config()

# Choose by name and need, not by numeric ids: the cheapest plan with enough RAM, the newest Debian.
location = edis.get_location(name=config.get("locationName") or "Frankfurt")
plan = edis.get_plan(location_id=location.id, min_ram_mb=config.get_int("minRamMb") or 2048)
os_image = edis.get_operating_system(location_id=location.id, plan_id=plan.id, name_regex=config.get("osPattern") or "^Debian")

server = edis.KvmServer(
    "web",
    location_id=location.id,
    plan_id=plan.id,
    os_id=os_image.id,
    hostname=config.get("hostname") or "web-1.example.com",
    billing_cycle=edis.BillingCycle.MONTHLY,
    # What the lookups pick changes when EDIS's catalogue does; without this, such a change would replace the
    # running server (a new paid order, the old one cancelled).
    opts=pulumi.ResourceOptions(ignore_changes=["planId", "osId"]),
)

pulumi.export("serviceId", server.service_id)
pulumi.export("kvmId", server.kvm_id)
pulumi.export("planName", plan.name)
