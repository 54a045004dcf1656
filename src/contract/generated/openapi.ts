// This file is generated from openapi/openapi.yaml by `npm run generate`.
// Do not edit it by hand: change the contract and regenerate. `npm test` fails when it is stale.

export interface paths {
    "/OAuth/Authorize": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Start an authorization (code flow or token flow)
         * @description The user is redirected to a login screen and then to a screen that
         *     grants permission. After that the user is redirected to `redirect_uri`:
         *
         *     - `response_type=code`: `{redirect_uri}?code=<authorization_code>`
         *     - `response_type=token`: `{redirect_uri}#token_type=bearer&access_token=<access_token>&scope=<scope>&expires_in=<seconds>`
         *
         *     `state`, when given, is returned unchanged. Tokens are issued only when
         *     both the client identifier and the redirect URI match the registration;
         *     when they do not, an error page is shown and the user is never
         *     redirected (RFC 6749 4.1.2.1).
         */
        get: operations["authorize"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/OAuth/Login": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** The login screen */
        get: operations["showLogin"];
        put?: never;
        /** Submit the user's credentials */
        post: operations["submitLogin"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/OAuth/Permission": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** The screen that grants permission */
        get: operations["showPermission"];
        put?: never;
        /** Grant or refuse permission */
        post: operations["submitPermission"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/OAuth/Token": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Exchange an authorization code or a refresh token for tokens
         * @description The request body is a string of name=value pairs joined with `&`
         *     (`application/x-www-form-urlencoded`, A-TOKEN-CONTENT-TYPE). The
         *     response is JSON.
         */
        post: operations["token"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/AdministrationInfoList": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * List the administrations the user may open
         * @description The administrations (databases) the token's user may open, as info
         *     objects. No database segment: it is what a client calls to learn the
         *     database ids for every other call (A-ADMINISTRATIONS). Takes the same
         *     list parameters as other lists (A-LIST-PARAMETERS).
         */
        get: operations["listAdministrationInfo"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/{database_id}/CustomerInfoList": {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /**
                 * @description Identifier of the administration (database). When no database is
                 *     given (an empty segment) the answer is 401; a database the token's
                 *     user may not use is 401 as well (A-DATABASE-ACCESS).
                 */
                database_id: components["parameters"]["DatabaseId"];
            };
            cookie?: never;
        };
        /**
         * List customer info objects
         * @description Read-only list of customer info objects. Filter, sort and paging
         *     parameters are not shown in the service description; the OData
         *     options real clients of the family send are supported for the info
         *     fields (A-LIST-PARAMETERS). Another `$` option, or an expression
         *     that is malformed or not supported, is 400 naming the parameter.
         */
        get: operations["listCustomerInfo"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/{database_id}/Customer": {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /**
                 * @description Identifier of the administration (database). When no database is
                 *     given (an empty segment) the answer is 401; a database the token's
                 *     user may not use is 401 as well (A-DATABASE-ACCESS).
                 */
                database_id: components["parameters"]["DatabaseId"];
            };
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Create a customer
         * @description The body holds all properties of the customer, with `CustomerId` ""
         *     and `OrganizationId` 0. A missing property is given its default
         *     value (A-DEFAULTS). The service assigns the identifier.
         */
        post: operations["createCustomer"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/{database_id}/Customer/{customer_id}": {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /**
                 * @description Identifier of the administration (database). When no database is
                 *     given (an empty segment) the answer is 401; a database the token's
                 *     user may not use is 401 as well (A-DATABASE-ACCESS).
                 */
                database_id: components["parameters"]["DatabaseId"];
                /** @description Identifier of the customer (`CustomerId`). An unknown id is 404. */
                customer_id: components["parameters"]["CustomerId"];
            };
            cookie?: never;
        };
        /** Read one customer */
        get: operations["getCustomer"];
        /**
         * Replace a customer
         * @description The body holds all properties of the customer; `CustomerId` is the
         *     value of the path. A missing property is given its default value
         *     (A-DEFAULTS); a missing `CustomerId` is taken from the path, a
         *     different one is refused with 400 (A-PUT-ID).
         */
        put: operations["updateCustomer"];
        post?: never;
        /** Remove a customer */
        delete: operations["deleteCustomer"];
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
}
export type webhooks = Record<string, never>;
export interface components {
    schemas: {
        /**
         * @description The single scope; its concrete value is configuration of an environment.
         * @example http://BusinessAdmin.Mock.API/Web/WebApi/*
         */
        Scope: string;
        AuthorizationCodeGrant: {
            /**
             * @description discriminator enum property added by openapi-typescript
             * @enum {string}
             */
            grant_type: "authorization_code";
            code: string;
            client_id: string;
            client_secret: string;
            redirect_uri: string;
        };
        RefreshTokenGrant: {
            /**
             * @description discriminator enum property added by openapi-typescript
             * @enum {string}
             */
            grant_type: "refresh_token";
            refresh_token: string;
            client_id: string;
            client_secret: string;
            redirect_uri: string;
        };
        TokenResponse: {
            access_token: string;
            /** @description `bearer`; compared case-insensitively by clients (RFC 6749 5.1). */
            token_type: string;
            /**
             * @description Seconds of validity.
             * @constant
             */
            expires_in: 7200;
            refresh_token: string;
            scope: components["schemas"]["Scope"];
        };
        OAuthError: {
            /** @enum {string} */
            error: "invalid_request" | "invalid_client" | "invalid_grant" | "unauthorized_client" | "unsupported_grant_type" | "invalid_scope" | "temporarily_unavailable";
            error_description?: string;
        };
        /** @description The ASP.NET Web API error shape. `ModelState` names each refused field. */
        Error: {
            Message: string;
            /** @description Field path (for example `customer.CreditLimit`) to its messages. */
            ModelState?: {
                [key: string]: string[];
            };
        };
        /**
         * @description The most important information of a customer. Read-only. Which fields
         *     an info object has is not shown in the description: only `CustomerId`,
         *     which ties it to its customer, is required here; the mock writes all
         *     eight (A-INFO-FIELDS) and the suite's assumption check requires them.
         */
        CustomerInfo: {
            CustomerId: string;
            Name?: string;
            ShortName?: string | null;
            City?: string | null;
            CountryId?: string | null;
            CustomerStateId?: string | null;
            Email?: string | null;
            Telephone?: string | null;
        };
        /**
         * @description An administration (database) the user may open, as the real family's
         *     `AdministrationInfoList` names it. `AdministrationId` is the database
         *     id of every data path (`/api/{database_id}/...`).
         */
        AdministrationInfo: {
            AdministrationId: string;
            Code: string | null;
            Description: string | null;
            ShortName: string | null;
            GroupId: number;
        };
        /** @description A bare array of administration info objects (A-LIST-SHAPE). */
        AdministrationInfoList: components["schemas"]["AdministrationInfo"][];
        /** @description A bare array of customer info objects (A-LIST-SHAPE). */
        CustomerInfoList: components["schemas"]["CustomerInfo"][];
        /** @description Element of `Addresses`. Its shape is not shown in the service description. */
        Address: {
            /** @default null */
            AddressId?: number | null;
            /**
             * @description code
             * @default null
             */
            AddressType?: string | null;
            /** @default null */
            Street1?: string | null;
            /** @default null */
            Street2?: string | null;
            /** @default null */
            ZipCode?: string | null;
            /** @default null */
            City?: string | null;
            /**
             * @description code
             * @default null
             */
            CountryId?: string | null;
            /** @default null */
            ContactPerson?: string | null;
            /** @default null */
            Email?: string | null;
            /** @default null */
            Telephone?: string | null;
        };
        /**
         * Format: month-day-year
         * @description A date written as month/day/year, for example `03/31/2024` or
         *     `3/31/2024`; it must exist in the calendar (A-DATES). The format
         *     `month-day-year` is how a tool finds the date fields of any resource.
         */
        MonthDayYear: string | null;
        /**
         * @description The body of POST and PUT: all properties of the customer. A missing
         *     property is given its default (`default`, A-DEFAULTS); `Name` has no
         *     default and is required (A-REQUIRED). Unknown properties are ignored
         *     (A-UNKNOWN-PROPERTIES).
         */
        CustomerRequest: {
            /** @default false */
            ApplyOrderSurcharge?: boolean;
            /**
             * @description code
             * @default J
             */
            ChargeVatTypeId?: string;
            /**
             * @description code
             * @default null
             */
            CollectiveInvoiceSystemId?: string | null;
            /** @default false */
            CombineInvoicesForElectronicBanking?: boolean;
            /**
             * Format: decimal
             * @default 0
             */
            CreditLimit?: number;
            /**
             * @description code
             * @default null
             */
            CreditSqueezeId?: string | null;
            /**
             * @description code
             * @default null
             */
            CurrencyId?: string | null;
            /** @default 0 */
            CustomerGroupId?: number;
            /**
             * @description code
             * @default null
             */
            CustomerStateId?: string | null;
            /**
             * @description The database (administration) of the customer; the service fills it in from the path (A-DATABASE-FIELD).
             * @default null
             */
            Database?: string | null;
            /**
             * @description code
             * @default null
             */
            DeliveryConditionId?: string | null;
            /**
             * Format: decimal
             * @default 0
             */
            DiscountPercentage?: number;
            /** @default false */
            HasOutstandingBalance?: boolean;
            /** @default false */
            IncludeUnpaidInvoices?: boolean;
            /**
             * @description code
             * @default null
             */
            IntrastatGoodsCodeId?: string | null;
            /**
             * @description code
             * @default null
             */
            IntrastatGoodsDistributionId?: string | null;
            /**
             * @description code
             * @default null
             */
            IntrastatStatSystemId?: string | null;
            /**
             * @description code
             * @default null
             */
            IntrastatTrafficRegionId?: string | null;
            /**
             * @description code
             * @default null
             */
            IntrastatTransactionTypeId?: string | null;
            /**
             * @description code
             * @default null
             */
            IntrastatTransportTypeId?: string | null;
            /** @default false */
            InvoiceOnBehalfOfMembers?: boolean;
            /** @default false */
            IsDunForPayment?: boolean;
            /** @default false */
            IsInFactoring?: boolean;
            /** @default false */
            IsPaymentRefRequired?: boolean;
            /**
             * @description code
             * @default null
             */
            PaymentConditionId?: string | null;
            /**
             * @description contact person
             * @default null
             */
            Person?: string | null;
            /**
             * @description code
             * @default null
             */
            PricelistId?: string | null;
            /** @default false */
            PrintPurchaseDetails?: boolean;
            /**
             * @description code
             * @default null
             */
            PurchaseOrganizationId?: string | null;
            /**
             * @description code
             * @default null
             */
            RevenueAccountId?: string | null;
            /**
             * @description code
             * @default null
             */
            VatScenarioId?: string | null;
            /**
             * @description code
             * @default null
             */
            AccountManagerId?: string | null;
            /**
             * @description Element shape not shown (A-ADDRESS). At most 50 items (A-LIMITS).
             * @default null
             */
            Addresses?: components["schemas"]["Address"][] | null;
            /** @default null */
            BusinessNumber?: string | null;
            /** @default null */
            City?: string | null;
            /**
             * @description chamber-of-commerce city
             * @default null
             */
            CocCity?: string | null;
            /** @default null */
            CocDate?: components["schemas"]["MonthDayYear"];
            /** @default null */
            CocRegistration?: string | null;
            /**
             * @description code
             * @default null
             */
            CountryId?: string | null;
            /**
             * @description Identifier of the customer. An empty string is sent on create; the
             *     same value as in the path is sent on update.
             * @default
             */
            CustomerId?: string;
            /** @default null */
            Email?: string | null;
            /** @default null */
            Fax?: string | null;
            /** @default null */
            Homepage?: string | null;
            /**
             * @description code
             * @default null
             */
            LanguageId?: string | null;
            /** @default null */
            MobilePhone?: string | null;
            /** @description The customer's name; required (A-REQUIRED); at most 40 characters (A-LIMITS). */
            Name: string;
            /**
             * @description 0 on create; the service assigns it and keeps it on update (A-CUSTOMER-IDS).
             * @default 0
             */
            OrganizationId?: number;
            /** @default null */
            ShortName?: string | null;
            /** @default null */
            Street1?: string | null;
            /** @default null */
            Street2?: string | null;
            /**
             * @description code
             * @default null
             */
            SupplierId?: string | null;
            /** @default null */
            Telephone?: string | null;
            /** @default null */
            VatNumber?: string | null;
            /** @default null */
            VatVerificationDate?: components["schemas"]["MonthDayYear"];
            /** @default null */
            ZipCode?: string | null;
        };
        /**
         * @description The customer as the service answers it: every property present.
         *     Extra properties an implementation adds are allowed.
         */
        Customer: {
            /** @default false */
            ApplyOrderSurcharge: boolean;
            /**
             * @description code
             * @default J
             */
            ChargeVatTypeId: string;
            /**
             * @description code
             * @default null
             */
            CollectiveInvoiceSystemId: string | null;
            /** @default false */
            CombineInvoicesForElectronicBanking: boolean;
            /**
             * Format: decimal
             * @default 0
             */
            CreditLimit: number;
            /**
             * @description code
             * @default null
             */
            CreditSqueezeId: string | null;
            /**
             * @description code
             * @default null
             */
            CurrencyId: string | null;
            /** @default 0 */
            CustomerGroupId: number;
            /**
             * @description code
             * @default null
             */
            CustomerStateId: string | null;
            /**
             * @description The database (administration) of the customer; the service fills it in from the path (A-DATABASE-FIELD).
             * @default null
             */
            Database: string | null;
            /**
             * @description code
             * @default null
             */
            DeliveryConditionId: string | null;
            /**
             * Format: decimal
             * @default 0
             */
            DiscountPercentage: number;
            /** @default false */
            HasOutstandingBalance: boolean;
            /** @default false */
            IncludeUnpaidInvoices: boolean;
            /**
             * @description code
             * @default null
             */
            IntrastatGoodsCodeId: string | null;
            /**
             * @description code
             * @default null
             */
            IntrastatGoodsDistributionId: string | null;
            /**
             * @description code
             * @default null
             */
            IntrastatStatSystemId: string | null;
            /**
             * @description code
             * @default null
             */
            IntrastatTrafficRegionId: string | null;
            /**
             * @description code
             * @default null
             */
            IntrastatTransactionTypeId: string | null;
            /**
             * @description code
             * @default null
             */
            IntrastatTransportTypeId: string | null;
            /** @default false */
            InvoiceOnBehalfOfMembers: boolean;
            /** @default false */
            IsDunForPayment: boolean;
            /** @default false */
            IsInFactoring: boolean;
            /** @default false */
            IsPaymentRefRequired: boolean;
            /**
             * @description code
             * @default null
             */
            PaymentConditionId: string | null;
            /**
             * @description contact person
             * @default null
             */
            Person: string | null;
            /**
             * @description code
             * @default null
             */
            PricelistId: string | null;
            /** @default false */
            PrintPurchaseDetails: boolean;
            /**
             * @description code
             * @default null
             */
            PurchaseOrganizationId: string | null;
            /**
             * @description code
             * @default null
             */
            RevenueAccountId: string | null;
            /**
             * @description code
             * @default null
             */
            VatScenarioId: string | null;
            /**
             * @description code
             * @default null
             */
            AccountManagerId: string | null;
            /**
             * @description Element shape not shown (A-ADDRESS). At most 50 items (A-LIMITS).
             * @default null
             */
            Addresses: components["schemas"]["Address"][] | null;
            /** @default null */
            BusinessNumber: string | null;
            /** @default null */
            City: string | null;
            /**
             * @description chamber-of-commerce city
             * @default null
             */
            CocCity: string | null;
            /** @default null */
            CocDate: components["schemas"]["MonthDayYear"];
            /** @default null */
            CocRegistration: string | null;
            /**
             * @description code
             * @default null
             */
            CountryId: string | null;
            /**
             * @description Identifier of the customer. An empty string is sent on create; the
             *     same value as in the path is sent on update.
             * @default
             */
            CustomerId: string;
            /** @default null */
            Email: string | null;
            /** @default null */
            Fax: string | null;
            /** @default null */
            Homepage: string | null;
            /**
             * @description code
             * @default null
             */
            LanguageId: string | null;
            /** @default null */
            MobilePhone: string | null;
            /** @description The customer's name; required (A-REQUIRED); at most 40 characters (A-LIMITS). */
            Name: string;
            /**
             * @description 0 on create; the service assigns it and keeps it on update (A-CUSTOMER-IDS).
             * @default 0
             */
            OrganizationId: number;
            /** @default null */
            ShortName: string | null;
            /** @default null */
            Street1: string | null;
            /** @default null */
            Street2: string | null;
            /**
             * @description code
             * @default null
             */
            SupplierId: string | null;
            /** @default null */
            Telephone: string | null;
            /** @default null */
            VatNumber: string | null;
            /** @default null */
            VatVerificationDate: components["schemas"]["MonthDayYear"];
            /** @default null */
            ZipCode: string | null;
        };
    };
    responses: {
        /** @description Not all required parameters are given, or a parameter has the wrong type or shape. */
        BadRequest: {
            headers: {
                [name: string]: unknown;
            };
            content: {
                "application/json": components["schemas"]["Error"];
                "application/xml": components["schemas"]["Error"];
                "text/xml": components["schemas"]["Error"];
            };
        };
        /** @description The user is not logged in (no, expired or unknown token), or no database is given. */
        Unauthorized: {
            headers: {
                "WWW-Authenticate": components["headers"]["WWW-Authenticate"];
                [name: string]: unknown;
            };
            content: {
                "application/json": components["schemas"]["Error"];
                "application/xml": components["schemas"]["Error"];
                "text/xml": components["schemas"]["Error"];
            };
        };
        /** @description The call does not exist, or the id of the given object does not exist. */
        NotFound: {
            headers: {
                [name: string]: unknown;
            };
            content: {
                "application/json": components["schemas"]["Error"];
                "application/xml": components["schemas"]["Error"];
                "text/xml": components["schemas"]["Error"];
            };
        };
        /** @description The body is larger than the service accepts (A-LIMITS). */
        PayloadTooLarge: {
            headers: {
                [name: string]: unknown;
            };
            content: {
                "application/json": components["schemas"]["Error"];
                "application/xml": components["schemas"]["Error"];
                "text/xml": components["schemas"]["Error"];
            };
        };
        /** @description The body's `Content-Type` is not JSON or XML (A-MEDIA-TYPES). */
        UnsupportedMediaType: {
            headers: {
                [name: string]: unknown;
            };
            content: {
                "application/json": components["schemas"]["Error"];
                "application/xml": components["schemas"]["Error"];
                "text/xml": components["schemas"]["Error"];
            };
        };
        /** @description A list parameter is malformed or not supported (A-LIST-PARAMETERS). */
        BadListQuery: {
            headers: {
                [name: string]: unknown;
            };
            content: {
                "application/json": components["schemas"]["Error"];
                "application/xml": components["schemas"]["Error"];
                "text/xml": components["schemas"]["Error"];
            };
        };
        /**
         * @description The service failed. Not shown in the description (A-SERVER-ERROR); the
         *     mock answers it only when asked (`Prefer: code=500`, a scenario).
         */
        ServerError: {
            headers: {
                [name: string]: unknown;
            };
            content: {
                "application/json": components["schemas"]["Error"];
                "application/xml": components["schemas"]["Error"];
                "text/xml": components["schemas"]["Error"];
            };
        };
        /** @description The authorization request is unknown, expired or forged (CSRF); an HTML error page. */
        ScreenError: {
            headers: {
                [name: string]: unknown;
            };
            content: {
                "text/html": string;
            };
        };
        /**
         * @description A cap of A-LIMITS is full (authorization requests waiting for login, per source, per
         *     client or overall; codes or tokens of the client), or logins for the user name or from
         *     the address are locked after wrong passwords: an HTML page naming it, never a redirect.
         */
        ScreenLimit: {
            headers: {
                "Retry-After": components["headers"]["Retry-After"];
                [name: string]: unknown;
            };
            content: {
                "text/html": string;
            };
        };
    };
    parameters: {
        /**
         * @description Identifier of the administration (database). When no database is
         *     given (an empty segment) the answer is 401; a database the token's
         *     user may not use is 401 as well (A-DATABASE-ACCESS).
         */
        DatabaseId: string;
        /** @description Identifier of the customer (`CustomerId`). An unknown id is 404. */
        CustomerId: string;
        /**
         * @description `eq`, `ne`, `and`, `or`, `not`, parentheses, `startswith` and `contains` on the fields of the list's items, with strings or null.
         * @example startswith(Name,'Bakkerij') and City ne null
         */
        Filter: string;
        /**
         * @description Fields of the list's items, each optionally `asc` or `desc`, separated by commas.
         * @example Name desc,CustomerId
         */
        OrderBy: string;
        Skip: number;
        Top: number;
        /** @description The pending authorization request the screen belongs to (A-SCREEN-PATHS). */
        AuthorizationRequestId: string;
    };
    requestBodies: {
        /**
         * @description The customer with all of its properties. `Content-Type` is
         *     `application/json`, `application/xml` or `text/xml`.
         */
        CustomerBody: {
            content: {
                "application/json": components["schemas"]["CustomerRequest"];
                "application/xml": components["schemas"]["CustomerRequest"];
                "text/xml": components["schemas"]["CustomerRequest"];
            };
        };
    };
    headers: {
        /** @description Where the user agent goes next. */
        Location: string;
        /**
         * @description Bearer challenge (RFC 6750 3): `Bearer realm="..."` without an error
         *     code when no token was sent; `error="invalid_token"` for an expired,
         *     revoked or unknown token.
         */
        "WWW-Authenticate": string;
        /** @description Token responses must not be cached (RFC 6749 5.1). */
        "Cache-Control-No-Store": string;
        /** @description For HTTP/1.0 caches (RFC 6749 5.1). */
        "Pragma-No-Cache": "no-cache";
        /** @description Screens of the authorization server refuse framing (RFC 9700 4.16). */
        "X-Frame-Options": "DENY";
        /** @description Contains `frame-ancestors 'none'`. */
        "Content-Security-Policy": string;
        /** @description Seconds until a cap of A-LIMITS has room again or a login lock ends. */
        "Retry-After": string;
    };
    pathItems: never;
}
export type $defs = Record<string, never>;
export interface operations {
    authorize: {
        parameters: {
            query: {
                /** @description Client Identifier of the registered, active application. */
                client_id: string;
                /** @description Must match the registered redirect URI exactly (simple string comparison). */
                redirect_uri: string;
                /** @description The single scope value, of the form `http://<vendor>.<product>.API/Web/WebApi/*`. */
                scope: components["schemas"]["Scope"];
                /** @description `code` (web server flow) or `token` (browser and mobile flow). */
                response_type: "code" | "token";
                /** @description Any data, for instance base64 text. Returned unchanged to the redirect URI. */
                state?: string;
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /**
             * @description The login screen, shown at this address itself. The description says
             *     only that the user is led to a login screen, not how; a server may
             *     render it here instead of redirecting. The mock redirects (302,
             *     A-REDIRECT-STATUS).
             */
            200: {
                headers: {
                    "X-Frame-Options": components["headers"]["X-Frame-Options"];
                    "Content-Security-Policy": components["headers"]["Content-Security-Policy"];
                    [name: string]: unknown;
                };
                content: {
                    "text/html": string;
                };
            };
            /**
             * @description Redirect. For a valid request, to the login screen (A-SCREEN-PATHS).
             *     For an invalid request from a known client with a matching redirect
             *     URI, to `redirect_uri` with `error` (and `error_description`,
             *     `state`) in the query (code flow) or the fragment (token flow),
             *     as RFC 6749 4.1.2.1 and 4.2.2.1 say (A-AUTHZ-ERRORS).
             */
            302: {
                headers: {
                    Location: components["headers"]["Location"];
                    [name: string]: unknown;
                };
                content?: never;
            };
            /**
             * @description Error page: unknown or inactive `client_id`, or a `redirect_uri`
             *     that does not match the registration. Never a redirect.
             *     The status code is our assumption (A-AUTHZ-ERROR-PAGE).
             */
            400: {
                headers: {
                    "X-Frame-Options": components["headers"]["X-Frame-Options"];
                    [name: string]: unknown;
                };
                content: {
                    "text/html": string;
                };
            };
            429: components["responses"]["ScreenLimit"];
        };
    };
    showLogin: {
        parameters: {
            query: {
                /** @description The pending authorization request the screen belongs to (A-SCREEN-PATHS). */
                request: components["parameters"]["AuthorizationRequestId"];
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /**
             * @description Server-rendered HTML login form with `input[name="username"]`,
             *     `input[name="password"]` and `button[type="submit"]`. Refuses framing.
             */
            200: {
                headers: {
                    "X-Frame-Options": components["headers"]["X-Frame-Options"];
                    "Content-Security-Policy": components["headers"]["Content-Security-Policy"];
                    [name: string]: unknown;
                };
                content: {
                    "text/html": string;
                };
            };
            400: components["responses"]["ScreenError"];
        };
    };
    submitLogin: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/x-www-form-urlencoded": {
                    /** @description The pending authorization request. */
                    request: string;
                    /** @description Anti-forgery token of the form. */
                    csrf: string;
                    username: string;
                    password: string;
                };
            };
        };
        responses: {
            /** @description Credentials refused; the login form again, with a message. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "text/html": string;
                };
            };
            /** @description Credentials accepted; see the permission screen (never 307, RFC 9700 4.11). */
            303: {
                headers: {
                    Location: components["headers"]["Location"];
                    [name: string]: unknown;
                };
                content?: never;
            };
            400: components["responses"]["ScreenError"];
            429: components["responses"]["ScreenLimit"];
        };
    };
    showPermission: {
        parameters: {
            query: {
                /** @description The pending authorization request the screen belongs to (A-SCREEN-PATHS). */
                request: components["parameters"]["AuthorizationRequestId"];
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /**
             * @description Server-rendered HTML with `button[name="decision"][value="allow"]`
             *     and `button[name="decision"][value="deny"]`. Refuses framing.
             */
            200: {
                headers: {
                    "X-Frame-Options": components["headers"]["X-Frame-Options"];
                    "Content-Security-Policy": components["headers"]["Content-Security-Policy"];
                    [name: string]: unknown;
                };
                content: {
                    "text/html": string;
                };
            };
            400: components["responses"]["ScreenError"];
        };
    };
    submitPermission: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/x-www-form-urlencoded": {
                    request: string;
                    csrf: string;
                    /** @enum {string} */
                    decision: "allow" | "deny";
                };
            };
        };
        responses: {
            /**
             * @description The authorization result, delivered to `redirect_uri`:
             *     code flow `{redirect_uri}?code=<code>[&state=<state>]`;
             *     token flow `{redirect_uri}#token_type=bearer&access_token=<token>&scope=<scope>&expires_in=7200[&state=<state>]`,
             *     never with a refresh token. A refusal redirects with `error=access_denied`.
             */
            303: {
                headers: {
                    Location: components["headers"]["Location"];
                    [name: string]: unknown;
                };
                content?: never;
            };
            400: components["responses"]["ScreenError"];
            429: components["responses"]["ScreenLimit"];
        };
    };
    token: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/x-www-form-urlencoded": components["schemas"]["AuthorizationCodeGrant"] | components["schemas"]["RefreshTokenGrant"];
            };
        };
        responses: {
            /** @description Tokens issued. */
            200: {
                headers: {
                    "Cache-Control": components["headers"]["Cache-Control-No-Store"];
                    Pragma: components["headers"]["Pragma-No-Cache"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["TokenResponse"];
                };
            };
            /** @description Token error (RFC 6749 5.2). Not shown in the service description (A-TOKEN-ERRORS). */
            400: {
                headers: {
                    "Cache-Control": components["headers"]["Cache-Control-No-Store"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["OAuthError"];
                };
            };
            /** @description `invalid_client`: unknown client or wrong secret (RFC 6749 5.2 allows 401; A-TOKEN-ERRORS). */
            401: {
                headers: {
                    "Cache-Control": components["headers"]["Cache-Control-No-Store"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["OAuthError"];
                };
            };
            /**
             * @description `temporarily_unavailable`: the client (or the whole mock) holds as many access or
             *     refresh tokens as A-LIMITS keeps; `Retry-After` says when the oldest is dropped. A
             *     cap that waiting does not free is 400 `invalid_request` naming it.
             */
            429: {
                headers: {
                    "Cache-Control": components["headers"]["Cache-Control-No-Store"];
                    "Retry-After": components["headers"]["Retry-After"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["OAuthError"];
                };
            };
        };
    };
    listAdministrationInfo: {
        parameters: {
            query?: {
                /**
                 * @description `eq`, `ne`, `and`, `or`, `not`, parentheses, `startswith` and `contains` on the fields of the list's items, with strings or null.
                 * @example startswith(Name,'Bakkerij') and City ne null
                 */
                $filter?: components["parameters"]["Filter"];
                /**
                 * @description Fields of the list's items, each optionally `asc` or `desc`, separated by commas.
                 * @example Name desc,CustomerId
                 */
                $orderby?: components["parameters"]["OrderBy"];
                $skip?: components["parameters"]["Skip"];
                $top?: components["parameters"]["Top"];
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The list of administration info objects, as a bare array. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["AdministrationInfoList"];
                    "application/xml": components["schemas"]["AdministrationInfoList"];
                    "text/xml": components["schemas"]["AdministrationInfoList"];
                };
            };
            400: components["responses"]["BadListQuery"];
            401: components["responses"]["Unauthorized"];
            404: components["responses"]["NotFound"];
            500: components["responses"]["ServerError"];
        };
    };
    listCustomerInfo: {
        parameters: {
            query?: {
                /**
                 * @description `eq`, `ne`, `and`, `or`, `not`, parentheses, `startswith` and `contains` on the fields of the list's items, with strings or null.
                 * @example startswith(Name,'Bakkerij') and City ne null
                 */
                $filter?: components["parameters"]["Filter"];
                /**
                 * @description Fields of the list's items, each optionally `asc` or `desc`, separated by commas.
                 * @example Name desc,CustomerId
                 */
                $orderby?: components["parameters"]["OrderBy"];
                $skip?: components["parameters"]["Skip"];
                $top?: components["parameters"]["Top"];
            };
            header?: never;
            path: {
                /**
                 * @description Identifier of the administration (database). When no database is
                 *     given (an empty segment) the answer is 401; a database the token's
                 *     user may not use is 401 as well (A-DATABASE-ACCESS).
                 */
                database_id: components["parameters"]["DatabaseId"];
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The list of customer info objects, as a bare array. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["CustomerInfoList"];
                    "application/xml": components["schemas"]["CustomerInfoList"];
                    "text/xml": components["schemas"]["CustomerInfoList"];
                };
            };
            400: components["responses"]["BadListQuery"];
            401: components["responses"]["Unauthorized"];
            404: components["responses"]["NotFound"];
            500: components["responses"]["ServerError"];
        };
    };
    createCustomer: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /**
                 * @description Identifier of the administration (database). When no database is
                 *     given (an empty segment) the answer is 401; a database the token's
                 *     user may not use is 401 as well (A-DATABASE-ACCESS).
                 */
                database_id: components["parameters"]["DatabaseId"];
            };
            cookie?: never;
        };
        requestBody: components["requestBodies"]["CustomerBody"];
        responses: {
            /** @description The created customer, as stored (A-WRITE-RESPONSE). */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Customer"];
                    "application/xml": components["schemas"]["Customer"];
                    "text/xml": components["schemas"]["Customer"];
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            404: components["responses"]["NotFound"];
            413: components["responses"]["PayloadTooLarge"];
            415: components["responses"]["UnsupportedMediaType"];
            500: components["responses"]["ServerError"];
        };
    };
    getCustomer: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /**
                 * @description Identifier of the administration (database). When no database is
                 *     given (an empty segment) the answer is 401; a database the token's
                 *     user may not use is 401 as well (A-DATABASE-ACCESS).
                 */
                database_id: components["parameters"]["DatabaseId"];
                /** @description Identifier of the customer (`CustomerId`). An unknown id is 404. */
                customer_id: components["parameters"]["CustomerId"];
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description One stand-alone customer object. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Customer"];
                    "application/xml": components["schemas"]["Customer"];
                    "text/xml": components["schemas"]["Customer"];
                };
            };
            401: components["responses"]["Unauthorized"];
            404: components["responses"]["NotFound"];
            500: components["responses"]["ServerError"];
        };
    };
    updateCustomer: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /**
                 * @description Identifier of the administration (database). When no database is
                 *     given (an empty segment) the answer is 401; a database the token's
                 *     user may not use is 401 as well (A-DATABASE-ACCESS).
                 */
                database_id: components["parameters"]["DatabaseId"];
                /** @description Identifier of the customer (`CustomerId`). An unknown id is 404. */
                customer_id: components["parameters"]["CustomerId"];
            };
            cookie?: never;
        };
        requestBody: components["requestBodies"]["CustomerBody"];
        responses: {
            /** @description The customer as stored after the change (A-WRITE-RESPONSE). */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Customer"];
                    "application/xml": components["schemas"]["Customer"];
                    "text/xml": components["schemas"]["Customer"];
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            404: components["responses"]["NotFound"];
            413: components["responses"]["PayloadTooLarge"];
            415: components["responses"]["UnsupportedMediaType"];
            500: components["responses"]["ServerError"];
        };
    };
    deleteCustomer: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /**
                 * @description Identifier of the administration (database). When no database is
                 *     given (an empty segment) the answer is 401; a database the token's
                 *     user may not use is 401 as well (A-DATABASE-ACCESS).
                 */
                database_id: components["parameters"]["DatabaseId"];
                /** @description Identifier of the customer (`CustomerId`). An unknown id is 404. */
                customer_id: components["parameters"]["CustomerId"];
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Removed. The body is empty (A-WRITE-RESPONSE). */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
            401: components["responses"]["Unauthorized"];
            404: components["responses"]["NotFound"];
            500: components["responses"]["ServerError"];
        };
    };
}
