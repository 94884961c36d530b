import { Role } from "@paygate/domain"

/** A team member's role (the domain's `Role`) as the API names it. */
export const TeamRole = Role.annotate({ identifier: "TeamRole" })
