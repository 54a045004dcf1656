// This file is generated from conformance/requirements.yaml by `npm run generate`.
// Do not edit it by hand: change the requirements and regenerate. `npm test` fails when it is stale.

/** Every requirement of the suite: its kind (spec, oauth or assumption), section and text. */
export const REQUIREMENTS = {
  "SVC-RESOURCE-ADDRESS": {
    kind: "spec",
    section: "What the service does, 1",
    text: "Every resource has its own address; an object created by POST (a customer, any editable resource) is read at /api/<database_id>/<Resource>/<id>. Checked per editable resource.",
  },
  "SVC-METHODS": {
    kind: "spec",
    section: "What the service does, 2",
    text: "GET, POST, PUT and DELETE read, create, update and delete an editable object (the customer; every editable resource of the contract); a PUT replaces the object whole, its arrays included. Checked per editable resource.",
  },
  "SVC-FORMATS": {
    kind: "spec",
    section: "What the service does, 3",
    text: "Payloads can be JSON or XML; Accept chooses the format of an answer, and the XML form carries the JSON form's names and values. Checked per resource.",
  },
  "SVC-FORMATS-WRITE": {
    kind: "spec",
    section: "What the service does, 3",
    text: "A write takes a JSON body and an XML body alike - the same values sent as JSON and as XML (application/xml and text/xml), on create and on replace, are stored the same, and read back the same in JSON and in XML; an XML write asked for XML is answered in XML. Checked per editable resource, with values that are not the defaults (decimals with a fraction and three places, texts with spaces at both ends, XML's special characters and letters beyond ASCII), each read back as sent.",
  },
  "SVC-MODEL": {
    kind: "spec",
    section: "What the service does, 1, 2, 3 and 6; Resources (defaults); Endpoints",
    text: "Any sequence of create, read, replace (PUT), delete and list over the editable resources answers as a model of the description says, step by step - a created object reads back with the values sent and the defaults of those left out, in JSON and in XML; a PUT replaces it whole; a deleted one answers 404; the list shows exactly the objects that exist. Explored with random sequences (CONFORMANCE_EXPLORE_STEPS); a failure is shrunk to its shortest sequence and printed with its seed.",
  },
  "SVC-READ-ONLY-LIST": {
    kind: "spec",
    section: "What the service does, 6",
    text: "Lists and info objects are read-only (only GET); POST, PUT and DELETE on them do not succeed. Checked per list and info object.",
  },
  "CUST-FIELDS": {
    kind: "spec",
    section: "Resources and their fields, Customer",
    text: "A customer carries the 55 fields of the table, each with its type and nullability.",
  },
  "CUST-NAMES": {
    kind: "spec",
    section: "Resources and their fields, Customer",
    text: "Field names are written as in the table (PascalCase). A camelCase implementation is reported here once.",
  },
  "CUST-DATES": {
    kind: "spec",
    section: "Resources and their fields, Customer",
    text: "CocDate and VatVerificationDate are written as month/day/year.",
  },
  "CUST-DECIMALS": {
    kind: "spec",
    section: "Resources and their fields, Customer",
    text: "CreditLimit and DiscountPercentage are decimals; a fractional value is kept.",
  },
  "CUST-BODY-ALL": {
    kind: "spec",
    section: "Resources and their fields, Customer",
    text: "The body of POST and PUT contains all properties of the object; such a body is accepted.",
  },
  "CUST-DEFAULTS": {
    kind: "spec",
    section: "Resources and their fields, Customer",
    text: "A property missing from the body of POST or PUT is given its default value; the object is still stored with that property, and a PUT does not keep the value it had before. Checked per editable resource.",
  },
  "CUST-CREATE-ID": {
    kind: "spec",
    section: "Resources and their fields, Customer (CustomerId, OrganizationId)",
    text: "On create CustomerId \"\" and OrganizationId 0 are sent; the service gives the customer its identifier.",
  },
  "CUST-UPDATE-ID": {
    kind: "spec",
    section: "Resources and their fields, Customer (CustomerId)",
    text: "On update the CustomerId of the path is sent and the customer of that id is changed.",
  },
  "SVC-FIELDS": {
    kind: "spec",
    section: "What the service does, 6 (result kinds); Resources and their fields",
    text: "An object of a resource the description does not show carries the fields its schema in the contract declares, each with its type and nullability (the customer's are CUST-FIELDS). Checked per editable resource and info object.",
  },
  "SVC-REQUIRED": {
    kind: "spec",
    section: "Errors, rule 3; Resources and their fields (\"Required fields are only indicated by status 400\")",
    text: "A body of POST or PUT that leaves out a property the contract declares required for a resource the description does not show (a team's own) is 400; a required property with a default is filled in, not missing (requiredOfWrite in src/rules/bodies.ts, the one list the judge, the checks and the mock's faults read; the mock's validation fills defaults in before it checks required). The team's contract is what declares that resource's required properties; the customer's (Name) are not shown, so its check is A-REQUIRED. Checked per editable resource besides the customer.",
  },
  "INFO-LIST": {
    kind: "spec",
    section: "Resources, CustomerInfoList; Endpoints, Data endpoints (database_id)",
    text: "GET on a list (CustomerInfoList: customer info objects) answers a JSON array of its items, each of its item schema, each an object of the database the path addresses (read at its address there). Checked per list.",
  },
  "TOK-CODE-EXCHANGE": {
    kind: "spec",
    section: "States and transitions, Tokens",
    text: "grant_type authorization_code with a valid code and matching client_id and redirect_uri returns an access token and a refresh token.",
  },
  "TOK-EXPIRY": {
    kind: "spec",
    section: "States and transitions, Tokens; Limits",
    text: "7200 seconds after it was issued an access token no longer authorizes requests (401), on every data operation of every resource (reads, lists and writes), for a token of the code flow, one of the implicit flow and one of a refresh grant; 10 seconds before, it still does. Needs a movable clock (/__mock/clock), else not verified.",
  },
  "TOK-RENEWED": {
    kind: "spec",
    section: "States and transitions, Tokens (rows 3 and 4)",
    text: "After expiry the token table's way back to \"access token valid\" works in each flow, and the new token authorizes every data operation of every resource; the expired one stays refused. Code flow, by the refresh grant; implicit flow, by logging in again (a new token in the redirect fragment).",
  },
  "TOK-REFRESH": {
    kind: "spec",
    section: "States and transitions, Tokens; Authentication, 6",
    text: "grant_type refresh_token with a valid refresh token and matching client_id, client_secret and redirect_uri returns a new token response of the same shape, whose access token works.",
  },
  "TOK-REFRESH-PARAMS": {
    kind: "spec",
    section: "Endpoints, body parameters of POST /OAuth/Token; States and transitions, Tokens; Authentication, 4",
    text: "refresh_token, client_id, client_secret and redirect_uri are required on the refresh grant, and must match the registration; without any of them, or with another client_id, client_secret or redirect_uri, or with them in the URL instead of the body, no token is issued.",
  },
  "TOK-IMPLICIT-NO-REFRESH": {
    kind: "spec",
    section: "States and transitions, Tokens; Authentication, 5",
    text: "The implicit flow returns no refresh token.",
  },
  "AUTHZ-SCREENS": {
    kind: "spec",
    section: "Endpoints, OAuth endpoints (GET /OAuth/Authorize)",
    text: "GET /OAuth/Authorize leads the user to a login screen, then to a screen that grants permission, then to redirect_uri; a wrong password gets no code or token (tried once a run).",
  },
  "AUTHZ-CODE-REDIRECT": {
    kind: "spec",
    section: "Endpoints, redirect results",
    text: "With response_type=code the user is redirected to {redirect_uri}?code=<authorization_code>.",
  },
  "AUTHZ-TOKEN-REDIRECT": {
    kind: "spec",
    section: "Endpoints, redirect results",
    text: "With response_type=token the user is redirected to {redirect_uri}#token_type=bearer&access_token=..&scope=..&expires_in=..",
  },
  "AUTHZ-STATE": {
    kind: "spec",
    section: "Endpoints, query parameters of /OAuth/Authorize (state)",
    text: "state is returned unchanged to the redirect URI (in the query; the token flow's answer may carry it in the fragment, as RFC 6749 4.2.2 asks).",
  },
  "AUTHZ-PARAMS-REQUIRED": {
    kind: "spec",
    section: "Endpoints, query parameters of /OAuth/Authorize",
    text: "client_id, redirect_uri, scope and response_type are required; without redirect_uri, scope or response_type no code or token is issued.",
  },
  "TOKEN-FORM-BODY": {
    kind: "spec",
    section: "Endpoints, OAuth endpoints (POST /OAuth/Token)",
    text: "POST /OAuth/Token takes name=value pairs joined with & and answers JSON.",
  },
  "TOKEN-RESPONSE": {
    kind: "spec",
    section: "Endpoints, token response; Limits",
    text: "The token response has access_token (string), token_type bearer, expires_in 7200 (integer), refresh_token (string) and scope.",
  },
  "TOKEN-CODE-PARAMS": {
    kind: "spec",
    section: "Endpoints, body parameters of POST /OAuth/Token",
    text: "code, client_id, client_secret and redirect_uri are required on the authorization_code grant; without any of them no token is issued.",
  },
  "SCOPE-SINGLE": {
    kind: "spec",
    section: "What the service does, 5; Authentication, 7; Limits",
    text: "A single scope of the form http://<vendor>.<product>.API/Web/WebApi/* covers all data; the token response names it.",
  },
  "DATA-BEARER": {
    kind: "spec",
    section: "Endpoints, Data endpoints; Authentication, 1",
    text: "A data request with Authorization Bearer <access token> and Accept is answered.",
  },
  "AUTH-CLIENT-REDIRECT-MATCH": {
    kind: "spec",
    section: "Authentication, 4",
    text: "Tokens are issued only when both the client identifier and the redirect URI match the registration.",
  },
  "AUTH-REGISTRATION": {
    kind: "spec",
    section: "Authentication, 2; States and transitions, Application registration",
    text: "An application that is registered but not yet activated (status Actief) gets no code or token.",
  },
  "AUTH-SECRET": {
    kind: "spec",
    section: "Authentication, 3, 5 and 6",
    text: "The code and refresh grants use the Client Secret; a wrong secret gets no token.",
  },
  "AUTH-IMPLICIT-NO-SECRET": {
    kind: "spec",
    section: "Authentication, 3 and 5",
    text: "The token flow works without the Client Secret.",
  },
  "AUTH-BACKGROUND": {
    kind: "spec",
    section: "Authentication, 8",
    text: "A background application exchanges its stored refresh token, with client id and secret, for access tokens as in the refresh step.",
  },
  "ERR-200": {
    kind: "spec",
    section: "Errors, 200",
    text: "A call that succeeds answers 200, on every operation of every resource of the contract (lists, reads, creates, updates and deletes).",
  },
  "ERR-1-PATH": {
    kind: "spec",
    section: "Errors, rule 1",
    text: "When the called path does not exist, the answer is 404.",
  },
  "ERR-2-ID": {
    kind: "spec",
    section: "Errors, rule 2",
    text: "When the id in the path does not match an existing object, the answer is 404 (GET, PUT, DELETE), whatever the id's shape (GET and DELETE of an id longer than the service's, and of one with a space and a dot). Checked per editable resource.",
  },
  "ERR-3-REQUIRED": {
    kind: "spec",
    section: "Errors, rule 3",
    text: "When a required parameter is missing (here the body of POST or PUT), the answer is 400. Checked per editable resource.",
  },
  "ERR-4-TOKEN": {
    kind: "spec",
    section: "Errors, rule 4; Authentication, 10",
    text: "When the token is absent, the answer is 401. Checked per resource, and on every data operation of the contract at once (token-states.spec.ts).",
  },
  "ERR-4-DATABASE": {
    kind: "spec",
    section: "Errors, rule 4; Authentication, 10",
    text: "When no database is given (an empty database segment, /api//CustomerInfoList, or none at all, /api/CustomerInfoList), the answer is 401. Checked per resource of a database.",
  },
  "VER-PATH": {
    kind: "spec",
    section: "Versioning, 1 and 3",
    text: "The API version number is part of every path (/v<version>/...); a path without it, or with the number but not its v, does not exist (404).",
  },
  "VER-CASE": {
    kind: "spec",
    section: "Endpoints (the version segment is written with a lowercase or uppercase v)",
    text: "The version segment works with a lowercase and an uppercase v. Checked per resource, and on the OAuth endpoints.",
  },
  "OAUTH-NO-REDIRECT-ON-BAD-CLIENT": {
    kind: "oauth",
    section: "RFC 6749 4.1.2.1, 4.2.2.1; RFC 9700 4.1",
    text: "An unknown client or a redirect_uri that is not exactly the registered one (trailing slash, case, extra path, added query, http for https, added fragment, another host) gets an error page, never a redirect.",
  },
  "OAUTH-ERROR-REDIRECT": {
    kind: "oauth",
    section: "RFC 6749 4.1.2.1, 4.2.2.1",
    text: "Other authorization errors (unsupported response_type, the user refuses) redirect to redirect_uri with error and the unchanged state.",
  },
  "OAUTH-IMPLICIT-FRAGMENT": {
    kind: "oauth",
    section: "RFC 6749 4.2.2",
    text: "The token flow's access token arrives in the fragment, never the query (and never with a refresh token, which TOK-IMPLICIT-NO-REFRESH checks).",
  },
  "OAUTH-CODE-SINGLE-USE": {
    kind: "oauth",
    section: "RFC 6749 4.1.2, 10.5",
    text: "An authorization code can be used once; a second use is refused with invalid_grant.",
  },
  "OAUTH-CODE-REUSE-REVOKES": {
    kind: "oauth",
    section: "RFC 6749 4.1.2 (SHOULD)",
    text: "When a code is used twice, the access token issued from it stops working.",
  },
  "OAUTH-CODE-BOUND": {
    kind: "oauth",
    section: "RFC 6749 4.1.3",
    text: "A code is bound to the client and the redirect URI it was issued for; another client or another redirect_uri (one in another case too) gets invalid_grant.",
  },
  "OAUTH-REFRESH-BOUND": {
    kind: "oauth",
    section: "RFC 6749 6, 10.4",
    text: "A refresh token is bound to its client; another client gets invalid_grant.",
  },
  "OAUTH-TOKEN-ERRORS": {
    kind: "oauth",
    section: "RFC 6749 5.2",
    text: "Token errors are JSON with error invalid_request (missing parameter), invalid_client (bad secret), invalid_grant (bad code) or unsupported_grant_type.",
  },
  "OAUTH-CLIENT-BASIC": {
    kind: "oauth",
    section: "RFC 6749 2.3.1, 5.2",
    text: "A confidential client may authenticate at the token endpoint with HTTP Basic (id and secret form-urlencoded, then base64); a wrong secret that way is 401 invalid_client with a Basic WWW-Authenticate challenge.",
  },
  "OAUTH-NO-STORE": {
    kind: "oauth",
    section: "RFC 6749 5.1",
    text: "Token responses carry Cache-Control no-store.",
  },
  "OAUTH-BEARER-CHALLENGE": {
    kind: "oauth",
    section: "RFC 6750 3, 3.1",
    text: "A 401 carries WWW-Authenticate with the Bearer scheme; without credentials no error code, with an unknown or expired token error=\"invalid_token\".",
  },
  "OAUTH-INVALID-TOKEN": {
    kind: "oauth",
    section: "RFC 6750 3.1 (invalid_token); description, Errors 401; Authentication, 1",
    text: "A malformed bearer token, one the service never issued, and a refresh token presented as the access token, are refused with 401 on every data operation of every resource of the contract (reads, lists and writes).",
  },
  "OAUTH-BEARER-CASE": {
    kind: "oauth",
    section: "RFC 6750 2.1, RFC 9110 11.1",
    text: "The Bearer scheme name is case-insensitive.",
  },
  "OAUTH-SCREENS-NO-FRAMING": {
    kind: "oauth",
    section: "RFC 9700 4.16; RFC 6749 10.13",
    text: "The login and permission screens refuse framing (X-Frame-Options DENY or CSP frame-ancestors 'none').",
  },
  "OAUTH-CODE-LIFETIME": {
    kind: "oauth",
    section: "RFC 6749 4.1.2",
    text: "An authorization code expires; one older than 10 minutes is refused with invalid_grant.",
  },
  "OAUTH-TOKEN-ENTROPY": {
    kind: "oauth",
    section: "RFC 6749 10.10; RFC 9700 4.1",
    text: "Codes, access tokens and refresh tokens can carry at least 128 bits of randomness and never repeat.",
  },
  "OAUTH-CSRF": {
    kind: "oauth",
    section: "RFC 6749 10.12; RFC 9700 4.7",
    text: "The permission form refuses a post from another site and a post with a forged anti-forgery value.",
  },
  "OAUTH-ERROR-PAGE-NO-REDIRECT": {
    kind: "oauth",
    section: "RFC 6749 4.1.2.1; RFC 9700 4.11",
    text: "The error page for an unverified redirect_uri neither redirects to it nor links to it (no open redirect).",
  },
  "A-DEFAULTS": {
    kind: "assumption",
    section: "ASSUMPTIONS.md",
    text: "Missing properties get the contract's default values (the customer's false, 0, null, \"\" (CustomerId) and \"J\" (ChargeVatTypeId)). Checked per editable resource.",
  },
  "A-REQUIRED": {
    kind: "assumption",
    section: "ASSUMPTIONS.md",
    text: "A body without Name is 400 naming Name.",
  },
  "A-ERROR-BODY": {
    kind: "assumption",
    section: "ASSUMPTIONS.md",
    text: "Errors answer {\"Message\", \"ModelState\"} and ModelState names each refused field (`customer.<Field>`, in a create and in a replacement); asked for in XML, an Error element.",
  },
  "A-INFO-FIELDS": {
    kind: "assumption",
    section: "ASSUMPTIONS.md",
    text: "Info objects have CustomerId, Name, ShortName, City, CountryId, CustomerStateId, Email and Telephone, equal to the customer's, after a create and after an update; so has every info list of the contract the fields its items share by name with their object. Checked per editable resource.",
  },
  "A-XML-MAPPING": {
    kind: "assumption",
    section: "ASSUMPTIONS.md",
    text: "XML is DataContract style (root named after the type, i:nil for null, ArrayOfCustomerInfo; every list's array and item elements named as the contract's xml names say) and reads back to the JSON value; character references are read as their characters; a DTD is refused.",
  },
  "A-MEDIA-TYPES": {
    kind: "assumption",
    section: "ASSUMPTIONS.md",
    text: "A missing or unknown Accept gets JSON; a body of another Content-Type is 415.",
  },
  "A-DATES": {
    kind: "assumption",
    section: "ASSUMPTIONS.md",
    text: "Dates are accepted without leading zeros and written MM/dd/yyyy; a date that does not exist (30 February, 29 February outside a leap year, month 13) is 400.",
  },
  "A-PUT-ID": {
    kind: "assumption",
    section: "ASSUMPTIONS.md",
    text: "A PUT body with another CustomerId than the path is 400; so is one naming another id on every editable resource.",
  },
  "A-WRITE-RESPONSE": {
    kind: "assumption",
    section: "ASSUMPTIONS.md",
    text: "POST and PUT answer the stored customer; DELETE answers an empty body.",
  },
  "A-INVALID-BODIES": {
    kind: "assumption",
    section: "ASSUMPTIONS.md",
    text: "A body that does not fit the contract (a property of the wrong type, in JSON or as XML text its type can not read, a malformed date, a text longer than its maxLength or shorter than its minLength, a number outside its minimum or maximum, a value its enum does not list, malformed JSON or XML) is 400, never 2xx and never 5xx, as a create (POST) and as a replacement (PUT); a value is never stored cut, replaced or dropped. Checked per editable resource.",
  },
  "A-PATH-CASE": {
    kind: "assumption",
    section: "ASSUMPTIONS.md",
    text: "Literal path segments match case-insensitively and a trailing slash is allowed; a customer's id is compared exactly.",
  },
  "A-UNKNOWN-METHOD": {
    kind: "assumption",
    section: "ASSUMPTIONS.md",
    text: "A method the path does not have is 404, on every data path of the contract.",
  },
  "A-DATABASE-ACCESS": {
    kind: "assumption",
    section: "ASSUMPTIONS.md",
    text: "A database the token's user may not use is 401, to every data operation, writes included.",
  },
  "A-VERSIONS": {
    kind: "assumption",
    section: "ASSUMPTIONS.md",
    text: "A version that is not served is 404.",
  },
  "A-LIMITS": {
    kind: "assumption",
    section: "ASSUMPTIONS.md",
    text: "A body over 1 MiB is 413; a Name over 40 characters or more than 50 Addresses is 400 naming the field.",
  },
  "A-NAMES": {
    kind: "assumption",
    section: "ASSUMPTIONS.md",
    text: "A JSON property that matches a field only case-insensitively binds to it (camelCase bodies work, an address's fields too), answers name them as the contract does; two properties that bind to one field are 400.",
  },
  "A-UNKNOWN-PROPERTIES": {
    kind: "assumption",
    section: "ASSUMPTIONS.md",
    text: "Properties that bind to no field are ignored, not refused, and named in X-Bawa-Ignored-Properties.",
  },
  "A-FORMAT-SUFFIX": {
    kind: "assumption",
    section: "ASSUMPTIONS.md",
    text: "A .json or .xml suffix on a data path chooses the answer's format, before Accept.",
  },
  "A-LIST-PARAMETERS": {
    kind: "assumption",
    section: "ASSUMPTIONS.md",
    text: "CustomerInfoList takes $filter, $orderby (asc and desc), $skip and $top (applied in that order) on the info fields; another $ option or an unsupported expression is 400. Every other list of the contract takes them too ($top=0 answers none; $select and a malformed $filter are 400).",
  },
  "A-CORS": {
    kind: "assumption",
    section: "ASSUMPTIONS.md",
    text: "The origin of a registered redirect URI may call the API from a browser (preflight 204 with Access-Control-Allow-Origin, and the header on every answer); another origin gets no allow headers.",
  },
  "A-CUSTOMER-IDS": {
    kind: "assumption",
    section: "ASSUMPTIONS.md",
    text: "A CustomerId is 1 to 8 letters, digits, _ or -; another is 400 naming CustomerId. Customers created with an empty id get distinct ids; a chosen id in use is 400 and leaves its customer as it was. OrganizationId is kept on update, whatever the body says.",
  },
  "A-AUTHZ-ERROR-PAGE": {
    kind: "assumption",
    section: "ASSUMPTIONS.md",
    text: "The authorization error page is HTML with status 400.",
  },
  "A-AUTHZ-ERRORS": {
    kind: "assumption",
    section: "ASSUMPTIONS.md",
    text: "A wrong or missing scope issues nothing and redirects with error=invalid_scope and the unchanged state, in the query (code flow) or the fragment (token flow).",
  },
  "A-TOKEN-ERRORS": {
    kind: "assumption",
    section: "ASSUMPTIONS.md",
    text: "invalid_client is 401; the other token errors are 400.",
  },
  "A-REFRESH-TOKENS": {
    kind: "assumption",
    section: "ASSUMPTIONS.md",
    text: "Refresh tokens are not rotated; the same refresh token works again.",
  },
  "A-CODE-LIFETIME": {
    kind: "assumption",
    section: "ASSUMPTIONS.md",
    text: "An authorization code expires 300 seconds after it was issued.",
  },
} as const;

/** The id of a requirement of conformance/requirements.yaml. */
export type RequirementId = keyof typeof REQUIREMENTS;

/** The kind of each requirement. */
export const REQUIREMENT_KINDS: Readonly<Record<RequirementId, "spec" | "oauth" | "assumption">> =
  Object.fromEntries(Object.entries(REQUIREMENTS).map(([id, r]) => [id, r.kind])) as never;
